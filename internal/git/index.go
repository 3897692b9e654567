package git

// This file holds the index: reading and writing its entries, the
// user's index (its path, lock and installing a new one), and the
// raw bytes of an index file.

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// IndexPath is the file of the user's index for this worktree.
func (r *Repo) IndexPath() string { return filepath.Join(r.GitDir, "index") }

// CopyIndex makes a private index under the git dir that starts as a copy
// of the user's index, with the same modification time so git's stat cache
// stays valid and unchanged files are not read again. Without a user index
// the private one starts empty. Remove the file when done (or hand it to
// InstallIndex).
func (r *Repo) CopyIndex(name string) (Index, error) {
	// The pid in the name says whose it is if a kill leaves it behind
	// (see LeftoverIndexes).
	f, ix, _, err := r.newPrivateIndex(name)
	if err != nil {
		return Index{}, err
	}
	src, err := os.Open(r.IndexPath())
	if errors.Is(err, os.ErrNotExist) {
		f.Close()
		// An absent file is how git spells an empty index.
		return ix, os.Remove(ix.Path)
	}
	if err != nil {
		f.Close()
		os.Remove(ix.Path)
		return Index{}, err
	}
	defer src.Close()
	st, err := src.Stat()
	if err == nil {
		_, err = io.Copy(f, src)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// CreateTemp made the file 0600; the copy may become the user's
		// index (InstallIndex), so it gets the original's mode.
		err = os.Chmod(ix.Path, st.Mode().Perm())
	}
	if err == nil {
		err = os.Chtimes(ix.Path, st.ModTime(), st.ModTime())
	}
	if err != nil {
		os.Remove(ix.Path)
		return Index{}, err
	}
	return ix, nil
}

// ErrIndexLocked reports that another git process holds index.lock.
var ErrIndexLocked = errors.New("index.lock is held by another git process")

// InstallIndex makes the private index ix the user's index, the way git
// commits an index: take index.lock (waiting briefly for another git
// process to let go), then rename the lock over the index. The lock is
// taken as a hard link to ix's file, created only if absent, so that a
// lock left by a kill is recognisably ours: the same file as a private
// index named with this process's pid (see LeftoverIndexes). Where hard
// links are not available, an empty lock file is created instead and the
// new index renamed over it. ix's file is gone afterwards on success.
func (r *Repo) InstallIndex(ix Index) error {
	if ix.Path == "" {
		return errors.New("InstallIndex needs a private index")
	}
	lock := r.IndexPath() + ".lock"
	deadline := time.Now().Add(time.Second)
	linked := true
	for {
		err := os.Link(ix.Path, lock)
		if err != nil && !errors.Is(err, os.ErrExist) {
			// No hard links here: take the lock as an empty file.
			linked = false
			var f *os.File
			if f, err = os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); err == nil {
				f.Close()
			}
		}
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) {
			return err
		}
		if time.Now().After(deadline) {
			return ErrIndexLocked
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !linked {
		if err := os.Rename(ix.Path, lock); err != nil {
			os.Remove(lock)
			return err
		}
	}
	if err := os.Rename(lock, r.IndexPath()); err != nil {
		os.Remove(lock)
		return err
	}
	if linked {
		os.Remove(ix.Path)
	}
	return nil
}

// ResetIndexTo makes the user's index hold treeish's tree, as git reset
// <treeish> -- :/ does: only the entries that differ are replaced, so the
// others keep their stat data. HEAD and the work tree do not change.
func (r *Repo) ResetIndexTo(ctx context.Context, treeish string) error {
	_, err := r.git(ctx, "reset", "-q", treeish, "--", ":/")
	return err
}

// IndexEntries returns, for each path, its stage-0 entry in the user's
// index; a path the index lacks (or holds only in conflict) comes back
// with an empty Mode and Blob. It only reads the index.
func (r *Repo) IndexEntries(ctx context.Context, paths []string) ([]IndexEntry, error) {
	args := []string{"ls-files", "-s", "-z", "--full-name", "--"}
	if len(paths) <= maxPathArgs {
		args = append(args, paths...)
	}
	out, err := r.run(ctx, cmd{args: args, env: []string{"GIT_LITERAL_PATHSPECS=1"}})
	if err != nil {
		return nil, err
	}
	found := map[string]IndexEntry{}
	for _, rec := range splitZ(out) {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[2] != "0" {
			continue
		}
		found[path] = IndexEntry{Path: path, Mode: f[0], Blob: f[1]}
	}
	return inPathOrder(paths, found), nil
}

// inPathOrder lists found's entries in the order of paths, with an empty
// Mode and Blob for a path found lacks (IndexEntries, FilesAt).
func inPathOrder(paths []string, found map[string]IndexEntry) []IndexEntry {
	entries := make([]IndexEntry, len(paths))
	for i, p := range paths {
		if e, ok := found[p]; ok {
			entries[i] = e
		} else {
			entries[i] = IndexEntry{Path: p}
		}
	}
	return entries
}

// IndexLocked reports whether the user's index.lock exists (a git process
// is changing the index, or one was killed while it did).
func (r *Repo) IndexLocked() bool {
	_, err := os.Lstat(r.IndexPath() + ".lock")
	return err == nil
}

// IndexLockedError is a user's index.lock that is not provably ours.
type IndexLockedError struct{ Path string }

func (e *IndexLockedError) Error() string {
	return fmt.Sprintf("%s exists: another git command is changing the index, or one was killed while it did; if no git command is running in this repository, remove %s, then try again", e.Path, e.Path)
}

// Is makes errors.Is(err, ErrIndexLocked) hold.
func (e *IndexLockedError) Is(target error) bool { return target == ErrIndexLocked }

// Index names an index file for plumbing commands. The zero value is the
// user's own index (only commands defined to touch it may use that).
type Index struct {
	Path string // absolute path of a private index file, "" for the user's index
}

func (ix Index) env() []string {
	if ix.Path == "" {
		return nil
	}
	return []string{"GIT_INDEX_FILE=" + ix.Path}
}

// ReadTree replaces the index's entries with tree's.
func (r *Repo) ReadTree(ctx context.Context, ix Index, tree string) error {
	_, err := r.run(ctx, cmd{args: []string{"read-tree", tree}, env: ix.env()})
	return err
}

// WriteTree writes the index as a tree and returns its id.
func (r *Repo) WriteTree(ctx context.Context, ix Index) (string, error) {
	out, err := r.run(ctx, cmd{args: []string{"write-tree"}, env: ix.env()})
	return strings.TrimSpace(string(out)), err
}

// AddAll stages every change in the work tree into ix (git add -A), leaving
// out ignored files and the given pathspec exclusions (":(exclude)...").
func (r *Repo) AddAll(ctx context.Context, ix Index, exclude ...string) error {
	args := []string{"add", "-A", "--", "."}
	for _, e := range exclude {
		args = append(args, excludeGlobs(e)...)
	}
	// The excludes are glob pathspecs: an inherited pathspec mode must not
	// turn them literal (or the "." into a pattern).
	env := append(ix.env(), "GIT_LITERAL_PATHSPECS=0", "GIT_GLOB_PATHSPECS=0", "GIT_NOGLOB_PATHSPECS=0")
	_, err := r.run(ctx, cmd{args: args, env: env})
	return err
}

// UntrackedIn lists the files that are untracked for the private index
// ix (not in it, not ignored), as UntrackedFiles does for the user's.
func (r *Repo) UntrackedIn(ctx context.Context, ix Index, exclude ...string) ([]string, error) {
	args := []string{"ls-files", "-z", "--others", "--exclude-standard", "--full-name", "--", "."}
	for _, e := range exclude {
		args = append(args, ":(exclude,top,literal)"+e)
	}
	out, err := r.run(ctx, cmd{args: args, env: ix.env()})
	if err != nil {
		return nil, err
	}
	return splitZ(out), nil
}

// AddSplit is AddAll for a caller that has listed the untracked files
// itself (UntrackedIn) and takes only some of them: git add -u for the
// tracked files, then the untracked files add names (an embedded
// repository as its folder, "dir/") through update-index, so the work
// tree is walked once in all, by the listing. A file gone since it was
// listed is skipped (--remove drops nothing: it was not in the index).
func (r *Repo) AddSplit(ctx context.Context, ix Index, add []string, exclude ...string) error {
	args := []string{"add", "-u", "--", "."}
	for _, e := range exclude {
		args = append(args, excludeGlobs(e)...)
	}
	env := append(ix.env(), "GIT_LITERAL_PATHSPECS=0", "GIT_GLOB_PATHSPECS=0", "GIT_NOGLOB_PATHSPECS=0")
	if _, err := r.run(ctx, cmd{args: args, env: env}); err != nil {
		return err
	}
	if len(add) == 0 {
		return nil
	}
	var in strings.Builder
	for _, p := range add {
		in.WriteString(strings.TrimSuffix(p, "/"))
		in.WriteByte(0)
	}
	_, err := r.run(ctx, cmd{args: []string{"update-index", "--add", "--remove", "-z", "--stdin"}, env: ix.env(), stdin: strings.NewReader(in.String())})
	return err
}

// excludeGlobs are the pathspecs that keep the top-level path p and
// everything under it out of git add. They are written so that no
// pathspec is the plain text p: git add compares its pathspecs, excludes
// included, with the ignored paths it meets, and fails ("The following
// paths are ignored") when p is ignored by the user's own rules, as an
// .autodev/ line in .gitignore makes it. A glob whose first character is
// escaped matches the same paths without that plain prefix.
func excludeGlobs(p string) []string {
	var b strings.Builder
	for i, c := range p {
		switch {
		case i == 0 && !strings.ContainsRune(`*?[]\`, c):
			b.WriteString("[" + string(c) + "]")
		case strings.ContainsRune(`*?[]\`, c):
			b.WriteString(`\` + string(c))
		default:
			b.WriteRune(c)
		}
	}
	g := b.String()
	return []string{":(exclude,top,glob)" + g, ":(exclude,top,glob)" + g + "/**"}
}

// IndexFile is the user's index as read once: its bytes, its file's
// identity (to tell later whether it was replaced) and, when its
// cache-tree covers it whole, its tree.
type IndexFile struct {
	Absent bool
	data   *indexData // nil: absent
	id     fileID     // the file read (zero: not known)
	// Tree is the index's tree when it is known without a git process
	// ("" otherwise). Plain is false when the index holds what a tree
	// cannot (conflict stages, intent-to-add or skip-worktree entries, a
	// split or sparse index): its bytes are then what to keep.
	Tree  string
	Plain bool
}

// Bytes are the index file's bytes (nil when it is absent). An index this
// process has just written is joined from its pieces here, when first
// asked for.
func (ix *IndexFile) Bytes() []byte {
	if ix.data == nil {
		return nil
	}
	return ix.data.bytes()
}

// ReadIndexFile reads the user's index and what its cache-tree says.
func (r *Repo) ReadIndexFile() (*IndexFile, error) {
	f, err := os.Open(r.IndexPath())
	if errors.Is(err, fs.ErrNotExist) {
		return &IndexFile{Absent: true, Plain: true, Tree: r.EmptyTree()}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	id := fileIDOf(f)
	if data, tree, plain, ok := r.recalledIndex(r.IndexPath(), f, id); ok {
		// Read (or written) by this process a moment ago.
		ix := &IndexFile{data: data, id: id, Tree: tree, Plain: plain}
		if ix.Tree != "" && !r.hasObject(ix.Tree) {
			ix.Tree = ""
		}
		return ix, nil
	}
	data := bigBuffer(int(st.Size()))
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	ix := &IndexFile{data: flatIndexData(data), id: id}
	ix.Tree, ix.Plain = indexCacheTree(data, r.hashLen())
	if ix.Tree != "" && !r.hasObject(ix.Tree) {
		ix.Tree = ""
	}
	if id != (fileID{}) && int64(len(data)) == id.Size {
		rememberIndex(r.IndexPath(), id, ix.data, ix.Tree, ix.Plain)
	}
	return ix, nil
}

// Unchanged reports whether the index file is still the one read: the
// same file (git replaces it by rename), size and times, and times not so
// recent that a later version in the same clock tick, with an inode reused
// after the rename, could look the same (then it says no, and the caller
// reads it again).
func (ix *IndexFile) Unchanged(r *Repo) bool {
	if ix.Absent {
		_, err := os.Stat(r.IndexPath())
		return errors.Is(err, fs.ErrNotExist)
	}
	now, ok := idOfPath(r.IndexPath())
	if !ok || ix.id == (fileID{}) || now != ix.id {
		return false
	}
	return time.Since(time.Unix(0, now.Ctime)) > 2*time.Second
}

// indexEntry is one entry of an index file as walkIndex meets it.
type indexEntry struct {
	mode  uint32
	size  uint32 // the file's size when its stat data was recorded (low 32 bits)
	flags uint16 // stage in bits 12-13, extended flags in bit 14
	ext   bool   // extended flags (intent-to-add, skip-worktree) present
	oid   []byte
	name  []byte // nil in a version 4 index (its paths are prefix-compressed)
}

// walkIndex is the one reader of an index file's entries (versions 2 to
// 4): it calls each for every entry and returns the offset of the first
// extension. data is the whole file, its trailing checksum included.
func walkIndex(data []byte, hashLen int, each func(e indexEntry)) (ext int, err error) {
	if len(data) < 12+hashLen || string(data[:4]) != "DIRC" {
		return 0, errors.New("no index header")
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return 0, fmt.Errorf("unexpected version %d", version)
	}
	count := int(binary.BigEndian.Uint32(data[8:12]))
	end := len(data) - hashLen
	off := 12
	for i := 0; i < count; i++ {
		fixed := 40 + hashLen + 2
		if off+fixed > end {
			return 0, errors.New("truncated entry")
		}
		e := indexEntry{
			mode:  binary.BigEndian.Uint32(data[off+24:]),
			size:  binary.BigEndian.Uint32(data[off+36:]),
			flags: binary.BigEndian.Uint16(data[off+40+hashLen:]),
			oid:   data[off+40 : off+40+hashLen],
		}
		if e.flags&0x4000 != 0 {
			if version < 3 {
				return 0, errors.New("extended flags in a version 2 index")
			}
			e.ext = true
			fixed += 2
		}
		if version == 4 {
			p := off + fixed
			// varint of the prefix length to strip, then a NUL-terminated name.
			for p < end && data[p]&0x80 != 0 {
				p++
			}
			p++
			if p > end {
				return 0, errors.New("truncated entry")
			}
			nul := bytes.IndexByte(data[p:end], 0)
			if nul < 0 {
				return 0, errors.New("unterminated path")
			}
			each(e)
			off = p + nul + 1
			continue
		}
		nul := bytes.IndexByte(data[off+fixed:end], 0)
		if nul < 0 {
			return 0, errors.New("unterminated path")
		}
		e.name = data[off+fixed : off+fixed+nul]
		each(e)
		off += (fixed + nul + 8) &^ 7
	}
	return off, nil
}

// indexCacheTree walks an index file's entries (versions 2 to 4) and
// returns the root of its cache-tree extension when valid, and whether the
// index holds only what a tree can (stage 0 entries, no extended flags, no
// split or sparse index).
func indexCacheTree(data []byte, hashLen int) (tree string, plain bool) {
	plain = true
	count := 0
	off, err := walkIndex(data, hashLen, func(e indexEntry) {
		count++
		if e.ext {
			plain = false // intent-to-add, skip-worktree
		}
		if e.flags&0x3000 != 0 || e.flags&0x8000 != 0 || e.mode&0o170000 == 0o040000 {
			plain = false // a conflict stage, assume-unchanged, a sparse folder
		}
	})
	if err != nil {
		return "", false
	}
	end := len(data) - hashLen
	for off+8 <= end {
		sig := string(data[off : off+4])
		size := int(binary.BigEndian.Uint32(data[off+4:]))
		body := off + 8
		if body+size > end || size < 0 {
			return "", false
		}
		switch sig {
		case "TREE":
			// "" NUL entry_count SP subtrees LF oid
			ext := data[body : body+size]
			nul := bytes.IndexByte(ext, 0)
			lf := bytes.IndexByte(ext, '\n')
			if nul != 0 || lf < 0 {
				break
			}
			n, _, _ := strings.Cut(string(ext[1:lf]), " ")
			if c, err := strconv.Atoi(n); err == nil && c == count && lf+1+hashLen <= len(ext) {
				tree = hex.EncodeToString(ext[lf+1 : lf+1+hashLen])
			}
		case "link", "sdir":
			plain = false
		}
		off = body + size
	}
	if !plain {
		tree = ""
	}
	return tree, plain
}

// ReadIndexBytes returns the user's index file as it is (nil when there is
// none).
func (r *Repo) ReadIndexBytes() ([]byte, error) {
	b, err := os.ReadFile(r.IndexPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// WriteIndexBytes replaces the user's index with data the way git does:
// under index.lock (created exclusively), fsynced, renamed into place.
// nil data removes the index.
func (r *Repo) WriteIndexBytes(data []byte) error {
	lock := r.IndexPath() + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return ErrIndexLocked
		}
		return err
	}
	if data == nil {
		f.Close()
		os.Remove(lock)
		if err := os.Remove(r.IndexPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(lock, r.IndexPath())
	}
	if werr != nil {
		os.Remove(lock)
	}
	return werr
}

// IndexBytesTree writes the tree of an index given as bytes (through a
// private index file in the git dir) so that every object its entries
// name stays reachable from that tree.
func (r *Repo) IndexBytesTree(ctx context.Context, data []byte) (string, error) {
	f, err := os.CreateTemp(r.GitDir, "nudgethis-op-index-")
	if err != nil {
		return "", err
	}
	name := f.Name()
	defer os.Remove(name)
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	return r.WriteTree(ctx, Index{Path: name})
}

// IndexFromTree makes the user's index hold tree's entries, keeping the
// stat data of the entries that do not change (git read-tree --reset of one
// tree, on a copy installed under index.lock).
func (r *Repo) IndexFromTree(ctx context.Context, tree string) error {
	if !r.validID(tree) {
		return fmt.Errorf("not a tree id: %q", tree)
	}
	ix, err := r.CopyIndex("oplog")
	if err != nil {
		return err
	}
	args := append(append([]string{}, privateIndexArgs...), "read-tree", "--reset", tree)
	if _, err := r.run(ctx, cmd{args: args, env: ix.env()}); err != nil {
		os.Remove(ix.Path)
		return err
	}
	return r.InstallIndex(ix)
}

// statArgs make git compare every index entry with the file by all of its
// stat data, ctime and inode included, whatever the repository's config
// says: a task can set a file's mtime back, never its ctime.
var statArgs = []string{"-c", "core.checkStat=default", "-c", "core.trustctime=true",
	"-c", "core.splitIndex=false", "-c", "core.untrackedCache=false", "-c", "core.sparseCheckout=false"}

// RefreshIndex refreshes the stat data of r's index (a worktree's own),
// so that the next status does not find every entry racily clean and
// read every file again.
func (r *Repo) RefreshIndex(ctx context.Context) error {
	_, err := r.git(ctx, append(append([]string{}, statArgs...), "update-index", "-q", "--refresh")...)
	if err != nil && ExitCode(err) == 1 { // 1: some entry differs; the index is written all the same
		return nil
	}
	return err
}

// IndexKinds returns, for the index file at index, each entry's path
// and mode; plain is false when the index holds anything a fresh
// worktree's index does not (a conflict, a skip-worktree,
// intent-to-add or assume-unchanged entry, a split or sparse index).
// A plain index of version 2 or 3 (what git writes unless told
// otherwise) is read in this process, its trailing checksum verified as
// git does; any other through git ls-files.
func (r *Repo) IndexKinds(ctx context.Context, index string) (modes map[string]string, plain bool, err error) {
	data, err := os.ReadFile(index)
	if err != nil {
		return nil, false, err
	}
	if len(data) >= 8 && string(data[:4]) == "DIRC" && binary.BigEndian.Uint32(data[4:8]) <= 3 {
		if modes, plain, err := r.indexKindsOf(data, true); err != nil || plain {
			return modes, plain, err
		}
	}
	out, err := r.run(ctx, cmd{args: []string{"ls-files", "-z", "-s", "-v", "--full-name"}, env: []string{"GIT_INDEX_FILE=" + index}})
	if err != nil {
		return nil, false, err
	}
	modes = map[string]string{}
	plain = true
	for _, rec := range splitZ(out) {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 {
			return nil, false, nil
		}
		if f[0] != "H" || f[3] != "0" {
			plain = false
		}
		modes[path] = f[1]
	}
	return modes, plain, nil
}

// IndexPlain is IndexKinds's plain alone, without listing the entries
// when the index is read in this process.
func (r *Repo) IndexPlain(ctx context.Context, index string) (bool, error) {
	data, err := os.ReadFile(index)
	if err != nil {
		return false, err
	}
	if len(data) >= 8 && string(data[:4]) == "DIRC" && binary.BigEndian.Uint32(data[4:8]) <= 3 {
		if _, plain, err := r.indexKindsOf(data, false); err != nil || plain {
			return plain, err
		}
	}
	_, plain, err := r.IndexKinds(ctx, index)
	return plain, err
}

// indexKindsOf is IndexKinds for the bytes of a version 2 or 3 index;
// modes is nil unless list is set.
func (r *Repo) indexKindsOf(data []byte, list bool) (map[string]string, bool, error) {
	n := r.hashLen()
	if len(data) < 12+n {
		return nil, false, errors.New("the index file is truncated")
	}
	h := r.indexHash()
	h.Write(data[:len(data)-n])
	if !bytes.Equal(h.Sum(nil), data[len(data)-n:]) {
		return nil, false, errors.New("the index file's checksum does not match its content")
	}
	_, plain := indexCacheTree(data, n)
	if !list {
		return nil, plain, nil
	}
	count := binary.BigEndian.Uint32(data[8:12])
	modes := make(map[string]string, min(int(count), len(data)/64))
	names := map[uint32]string{}
	_, err := walkIndex(data, n, func(e indexEntry) {
		m, ok := names[e.mode]
		if !ok {
			m = fmt.Sprintf("%06o", e.mode)
			names[e.mode] = m
		}
		modes[string(e.name)] = m
	})
	if err != nil {
		return nil, false, fmt.Errorf("reading the index: %w", err)
	}
	return modes, plain, nil
}

// IndexFileSizes returns, for the index file at index (a version 2 or 3
// one, what git writes unless told otherwise), each regular file entry's
// size as its stat data recorded it when the file was last checked out or
// refreshed (sizes of 4 GiB and more wrap, as git stores them); ok is
// false for any other index, one whose checksum does not match, or one
// holding more than plain stage-0 entries.
func (r *Repo) IndexFileSizes(index string) (sizes map[string]int64, ok bool) {
	data, err := os.ReadFile(index)
	if err != nil || len(data) < 12+r.hashLen() || string(data[:4]) != "DIRC" || binary.BigEndian.Uint32(data[4:8]) > 3 {
		return nil, false
	}
	n := r.hashLen()
	h := r.indexHash()
	h.Write(data[:len(data)-n])
	if !bytes.Equal(h.Sum(nil), data[len(data)-n:]) {
		return nil, false
	}
	if _, plain := indexCacheTree(data, n); !plain {
		return nil, false
	}
	sizes = make(map[string]int64, min(int(binary.BigEndian.Uint32(data[8:12])), len(data)/64))
	if _, err := walkIndex(data, n, func(e indexEntry) {
		if e.mode&0o170000 == 0o100000 {
			sizes[string(e.name)] = int64(e.size)
		}
	}); err != nil {
		return nil, false
	}
	return sizes, true
}

// HiddenLocalEdits lists tracked files marked assume-unchanged or
// skip-worktree whose work-tree content differs from the index : git add (and so a checkpoint or a park) does not see those
// edits, and reset --hard would overwrite them. One ls-files, plus one
// hash-object only when such files exist.
func (r *Repo) HiddenLocalEdits(ctx context.Context) ([]string, error) {
	out, err := r.git(ctx, "ls-files", "-z", "-s", "-v")
	if err != nil {
		return nil, err
	}
	var paths, blobs []string
	for _, rec := range splitZ(out) {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 {
			continue
		}
		tag := f[0]
		hidden := tag == "S" || (len(tag) == 1 && tag[0] >= 'a' && tag[0] <= 'z')
		if !hidden || f[1] == ModeGitlink { // a submodule is its own repository
			continue
		}
		paths = append(paths, path)
		blobs = append(blobs, f[2])
	}
	if len(paths) == 0 {
		return nil, nil
	}
	// A missing file is no content at risk (sparse checkouts leave
	// skip-worktree files out on purpose): only files present are hashed.
	var present []string
	var presentIdx []int
	var edited []string
	for i, p := range paths {
		if st, err := os.Lstat(filepath.Join(r.WorkTree, p)); err != nil || !st.Mode().IsRegular() {
			continue
		}
		present = append(present, p)
		presentIdx = append(presentIdx, i)
	}
	ids, err := r.HashFiles(ctx, present)
	if err != nil {
		return nil, err
	}
	for j, i := range presentIdx {
		if ids[j] != blobs[i] {
			edited = append(edited, paths[i])
		}
	}
	return edited, nil
}

// IndexEntry is one index entry to set: Mode "" (or "0") and Blob "" remove
// the path from the index.
type IndexEntry struct {
	Path string
	Mode string
	Blob string
}

// UpdateIndexEntries sets or removes the given entries of ix in one
// `update-index --index-info` call, leaving every other entry as it is.
func (r *Repo) UpdateIndexEntries(ctx context.Context, ix Index, entries []IndexEntry) error {
	var in strings.Builder
	for _, e := range entries {
		if e.Mode == "" || e.Mode == "0" || e.Blob == "" {
			// mode 0 removes the entry (any stage).
			fmt.Fprintf(&in, "0 %s\t%s\x00", r.ZeroID(), e.Path)
			continue
		}
		fmt.Fprintf(&in, "%s %s\t%s\x00", e.Mode, e.Blob, e.Path)
	}
	_, err := r.run(ctx, cmd{args: []string{"update-index", "-z", "--index-info"}, env: ix.env(), stdin: strings.NewReader(in.String())})
	return err
}

// parseIndex reads the entries of an index file of version 2 or 3 (the
// small indexes this package writes itself).
func parseIndex(data []byte, hashLen int) ([]IndexEntry, error) {
	if len(data) >= 8 && binary.BigEndian.Uint32(data[4:8]) == 4 {
		return nil, errors.New("reading a private index: unexpected version 4")
	}
	var entries []IndexEntry
	_, err := walkIndex(data, hashLen, func(e indexEntry) {
		if stage := (e.flags >> 12) & 3; stage == 0 {
			entries = append(entries, IndexEntry{Mode: fmt.Sprintf("%06o", e.mode), Blob: hex.EncodeToString(e.oid), Path: string(e.name)})
		}
	})
	if err != nil {
		return nil, fmt.Errorf("reading a private index: %w", err)
	}
	return entries, nil
}

// indexEntriesOf runs ls-files with flags on paths (literal pathspecs,
// chunked) and returns its NUL-separated records.
func (r *Repo) indexEntriesOf(ctx context.Context, flags []string, paths []string) ([]string, error) {
	var recs []string
	for len(paths) > 0 {
		n := min(len(paths), maxPathArgs)
		args := append(append([]string{"ls-files", "-z"}, flags...), "--")
		out, err := r.git(ctx, append(args, literalSpecs(paths[:n])...)...)
		if err != nil {
			return nil, err
		}
		recs = append(recs, splitZ(out)...)
		paths = paths[n:]
	}
	return recs, nil
}

// SubmodulePaths returns the submodules of the work tree: the paths that
// .gitmodules names and the index holds as gitlinks (mode 160000). It
// costs nothing without a .gitmodules file.
func (r *Repo) SubmodulePaths(ctx context.Context) ([]string, error) {
	gm := filepath.Join(r.WorkTree, ".gitmodules")
	if st, err := os.Lstat(gm); err != nil || !st.Mode().IsRegular() {
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	out, err := r.git(ctx, "config", "-z", "--file", gm, "--get-regexp", `^submodule\..*\.path$`)
	if err != nil {
		if ExitCode(err) == 1 {
			return nil, nil
		}
		// A .gitmodules git cannot read names no submodule.
		return nil, nil
	}
	var named []string
	for _, rec := range splitZ(out) {
		if _, v, ok := strings.Cut(rec, "\n"); ok && v != "" {
			named = append(named, strings.TrimSuffix(v, "/"))
		}
	}
	if len(named) == 0 {
		return nil, nil
	}
	recs, err := r.indexEntriesOf(ctx, []string{"--stage"}, named)
	if err != nil {
		return nil, err
	}
	var subs []string
	for _, rec := range recs {
		// <mode> <object> <stage>\t<path>
		meta, path, ok := strings.Cut(rec, "\t")
		if ok && strings.HasPrefix(meta, "160000 ") {
			subs = append(subs, path)
		}
	}
	return subs, nil
}

// OutsideSparseCheckout returns which of paths the index marks
// skip-worktree in a sparse checkout (core.sparseCheckout): they are
// outside its cone, and git neither writes nor looks at them in the work
// tree. Without a sparse checkout it returns nil at the cost of one config
// read (none when no config file mentions the setting: ConfigMayMention).
func (r *Repo) OutsideSparseCheckout(ctx context.Context, paths []string) (map[string]bool, error) {
	if len(paths) == 0 || !r.ConfigMayMention("sparsecheckout") {
		return nil, nil
	}
	sparse, err := r.ConfigBool(ctx, "core.sparseCheckout", false)
	if err != nil || !sparse {
		return nil, err
	}
	recs, err := r.indexEntriesOf(ctx, []string{"-t"}, paths)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, rec := range recs {
		// <tag> <path>; S is skip-worktree.
		if p, ok := strings.CutPrefix(rec, "S "); ok {
			out[p] = true
		}
	}
	return out, nil
}

// CachedTree is the tree git write-tree would write from the index ix,
// read from its cache-tree without a git process: "" unless the
// cache-tree covers every entry, the index holds only what a tree can (no
// conflict stages, intent-to-add or skip-worktree entries, no split or
// sparse index: see indexCacheTree) and the tree is in the object store.
// A caller given "" asks git (WriteTree).
func (r *Repo) CachedTree(ix Index) string {
	if ix.Path == "" || !r.fastOK() {
		return ""
	}
	data, err := os.ReadFile(ix.Path)
	if err != nil {
		return ""
	}
	t, plain := indexCacheTree(data, r.hashLen())
	if !plain || t == "" || !r.hasObject(t) {
		return ""
	}
	return t
}
