package gitindex

// This file holds the index as files: the user's index (its path, lock and installing a
// new one), private copies, and reading an index file's bytes, entries
// and cache-tree in this process.

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/nudgethis/git-nudge/internal/gitstore"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// IndexPath is the file of the user's index for this worktree.
func (r *Files) IndexPath() string { return filepath.Join(r.GitDir, "index") }

// CopyIndex makes a private index under the git dir that starts as a copy
// of the user's index, with the same modification time so git's stat cache
// stays valid and unchanged files are not read again. Without a user index
// the private one starts empty. Remove the file when done (or hand it to
// InstallIndex).
func (r *Files) CopyIndex(name string) (gitstore.Index, error) {
	// The pid in the name says whose it is if a kill leaves it behind
	// (see LeftoverIndexes).
	f, ix, _, err := r.newPrivateIndex(name)
	if err != nil {
		return gitstore.Index{}, err
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
		return gitstore.Index{}, err
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
		return gitstore.Index{}, err
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
func (r *Files) InstallIndex(ix gitstore.Index) error {
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

// IndexLocked reports whether the user's index.lock exists (a git process
// is changing the index, or one was killed while it did).
func (r *Files) IndexLocked() bool {
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

// IndexFile is the user's index as read once: its bytes, its file's
// identity (to tell later whether it was replaced) and, when its
// cache-tree covers it whole, its tree.
type IndexFile struct {
	Absent bool
	data   *indexData      // nil: absent
	id     gitstore.FileID // the file read (zero: not known)
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
func (r *Files) ReadIndexFile() (*IndexFile, error) {
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
	id := gitstore.FileIDOf(f)
	if data, tree, plain, ok := r.recalledIndex(r.IndexPath(), f, id); ok {
		// Read (or written) by this process a moment ago.
		ix := &IndexFile{data: data, id: id, Tree: tree, Plain: plain}
		if ix.Tree != "" && !r.HasObjectHere(ix.Tree) {
			ix.Tree = ""
		}
		return ix, nil
	}
	data := bigBuffer(int(st.Size()))
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	ix := &IndexFile{data: flatIndexData(data), id: id}
	ix.Tree, ix.Plain = indexCacheTree(data, r.HashLen())
	if ix.Tree != "" && !r.HasObjectHere(ix.Tree) {
		ix.Tree = ""
	}
	if id != (gitstore.FileID{}) && int64(len(data)) == id.Size {
		rememberIndex(r.IndexPath(), id, ix.data, ix.Tree, ix.Plain)
	}
	return ix, nil
}

// Unchanged reports whether the index file is still the one read: the
// same file (git replaces it by rename), size and times, and times not so
// recent that a later version in the same clock tick, with an inode reused
// after the rename, could look the same (then it says no, and the caller
// reads it again).
func (ix *IndexFile) Unchanged(r interface{ IndexPath() string }) bool {
	if ix.Absent {
		_, err := os.Stat(r.IndexPath())
		return errors.Is(err, fs.ErrNotExist)
	}
	now, ok := gitstore.IDOfPath(r.IndexPath())
	if !ok || ix.id == (gitstore.FileID{}) || now != ix.id {
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
func (r *Files) ReadIndexBytes() ([]byte, error) {
	b, err := os.ReadFile(r.IndexPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// WriteIndexBytes replaces the user's index with data the way git does:
// under index.lock (created exclusively), fsynced, renamed into place.
// nil data removes the index.
func (r *Files) WriteIndexBytes(data []byte) error {
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

// ParseIndex reads the entries of an index file of version 2 or 3 (the
// small indexes this package writes itself).
func ParseIndex(data []byte, hashLen int) ([]gitstore.IndexEntry, error) {
	if len(data) >= 8 && binary.BigEndian.Uint32(data[4:8]) == 4 {
		return nil, errors.New("reading a private index: unexpected version 4")
	}
	var entries []gitstore.IndexEntry
	_, err := walkIndex(data, hashLen, func(e indexEntry) {
		if stage := (e.flags >> 12) & 3; stage == 0 {
			entries = append(entries, gitstore.IndexEntry{Mode: fmt.Sprintf("%06o", e.mode), Blob: hex.EncodeToString(e.oid), Path: string(e.name)})
		}
	})
	if err != nil {
		return nil, fmt.Errorf("reading a private index: %w", err)
	}
	return entries, nil
}

// CachedTree is the tree git write-tree would write from the index ix,
// read from its cache-tree without a git process: "" unless the
// cache-tree covers every entry, the index holds only what a tree can (no
// conflict stages, intent-to-add or skip-worktree entries, no split or
// sparse index: see indexCacheTree) and the tree is in the object store.
// A caller given "" asks git (WriteTree).
func (r *Files) CachedTree(ix gitstore.Index) string {
	if ix.Path == "" || !r.InProcess() {
		return ""
	}
	data, err := os.ReadFile(ix.Path)
	if err != nil {
		return ""
	}
	t, plain := indexCacheTree(data, r.HashLen())
	if !plain || t == "" || !r.HasObjectHere(t) {
		return ""
	}
	return t
}

// IndexEntriesHere is IndexEntriesAt read in this process: the user's
// index entries (stage 0) of paths, in their order, and the paths with
// conflict stages. ok is false when git should read the index (version 4,
// intent-to-add or skip-worktree entries, an unreadable file).
func (r *Files) IndexEntriesHere(paths []string) (entries []gitstore.IndexEntry, unmerged map[string]bool, ok bool) {
	want := make(map[string]bool, len(paths))
	for _, p := range paths {
		want[p] = true
	}
	found := map[string]gitstore.IndexEntry{}
	unmerged = map[string]bool{}
	if ix, err := r.ReadIndexFile(); err == nil && !ix.Absent && ix.data != nil {
		data := ix.Bytes()
		hereOK := true
		_, werr := walkIndex(data, r.HashLen(), func(e indexEntry) {
			if e.name == nil {
				hereOK = false // version 4: prefix-compressed names
				return
			}
			if !want[string(e.name)] {
				return
			}
			if e.ext {
				hereOK = false // intent-to-add or skip-worktree: left to git
				return
			}
			if e.flags&0x3000 != 0 {
				unmerged[string(e.name)] = true
				return
			}
			found[string(e.name)] = gitstore.IndexEntry{Path: string(e.name), Mode: strconv.FormatUint(uint64(e.mode), 8), Blob: hex.EncodeToString(e.oid)}
		})
		if werr == nil && hereOK {
			return gitstore.InPathOrder(paths, found), unmerged, true
		}
	} else if err == nil && ix.Absent {
		return gitstore.InPathOrder(paths, found), unmerged, true
	}
	return nil, nil, false
}

// WalkEntries calls each for every entry of the index file data (versions
// 2 and 3; the whole file, its checksum included) with the entry's name,
// stage (0 to 3), mode and object id.
func WalkEntries(data []byte, hashLen int, each func(name []byte, stage int, mode uint32, oid []byte)) error {
	_, err := walkIndex(data, hashLen, func(e indexEntry) {
		each(e.name, int(e.flags>>12)&3, e.mode, e.oid)
	})
	return err
}

// IndexKindsOf reads the bytes of a version 2 or 3 index: each entry's
// path and mode (nil unless list is set), and plain, false when the index
// holds anything a fresh worktree's index does not (a conflict, a
// skip-worktree, intent-to-add or assume-unchanged entry, a split or
// sparse index). Its trailing checksum is verified as git does.
func (r *Files) IndexKindsOf(data []byte, list bool) (map[string]string, bool, error) {
	n := r.HashLen()
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
func (r *Files) IndexFileSizes(index string) (sizes map[string]int64, ok bool) {
	n := r.HashLen()
	data, err := os.ReadFile(index)
	if err != nil || len(data) < 12+n || string(data[:4]) != "DIRC" || binary.BigEndian.Uint32(data[4:8]) > 3 {
		return nil, false
	}
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
