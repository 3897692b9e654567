package git

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// This file reads and writes git's on-disk formats in this process, for the
// operation log's recording (which runs around every mutating command and
// must add almost nothing to it): loose objects (read here, written by
// looseobject.go's writer), the
// type of an object in a pack (through its .idx), loose and packed refs
// (read, and a compare-and-swap update with git's own .lock protocol), HEAD,
// and the cache-tree of an index file. Each reports ok=false (or
// errSlowPath) when the repository uses something it does not handle (the
// reftable format, alternates, a shared repository's permissions, a
// config that mentions fsync, a symbolic ref, a deltified object: see
// fastOK), and the caller asks git instead.

// errSlowPath says: ask git, this file does not handle the case.
var errSlowPath = errors.New("not handled in-process")

// fastOK is the one rule for when this process reads and writes git's
// files itself (refs, HEAD, loose objects, pack indexes, the index's
// cache-tree) instead of asking git: files ref storage (the config does
// not mention refStorage), objects only in this repository's own folder
// (no alternates), and nothing that would make git write differently
// from this process: a repository shared with a group (any config file
// git reads mentions sharedRepository, or git made the object folder
// setgid for it: git sets permissions this process does not) or a config
// that sets core.fsync* (it could ask for objects or refs to be flushed;
// this process never flushes, as git by default does not for loose
// objects). When no config file mentions either word, git is not asked;
// when one might (config from the environment, a file that includes
// another, the word anywhere), git config says whether either is set. The
// answer is worked out once per Repo value.
func (r *Repo) fastOK() bool {
	if v := atomic.LoadInt32(&r.fast); v != 0 {
		return v == 1
	}
	v := int32(2)
	if r.fastAllowed() {
		v = 1
	}
	atomic.StoreInt32(&r.fast, v)
	return v == 1
}

func (r *Repo) fastAllowed() bool {
	b, err := os.ReadFile(filepath.Join(r.CommonDir, "config"))
	if err != nil || strings.Contains(strings.ToLower(string(b)), "refstorage") {
		return false
	}
	if _, err := os.Stat(filepath.Join(r.CommonDir, "objects", "info", "alternates")); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	st, err := os.Stat(filepath.Join(r.CommonDir, "objects"))
	if err != nil || !st.IsDir() || st.Mode()&fs.ModeSetgid != 0 {
		return false
	}
	if !r.configMentions("sharedrepository", "fsync") {
		return true
	}
	// Some file mentions one of them or includes another file (a work
	// identity through includeIf is common): ask git itself, which follows
	// includes, whether either setting is in force. One git process here
	// spares the ten or so the slow path costs.
	set, err := r.ConfigGetRegexp(context.Background(), `^core\.(sharedrepository|fsync)`)
	return err == nil && len(set) == 0
}

// ObjectID is the id git gives an object of type typ holding data: the
// one place object ids are hashed.
func (r *Repo) ObjectID(typ string, data []byte) string {
	var h hash.Hash
	if r.ObjectFormat == "sha256" {
		h = sha256.New()
	} else {
		h = sha1.New()
	}
	h.Write(strconv.AppendInt([]byte(typ+" "), int64(len(data)), 10))
	h.Write([]byte{0})
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

func (r *Repo) loosePath(id string) string {
	return filepath.Join(r.CommonDir, "objects", id[:2], id[2:])
}

// WriteObjects stores each of data as an object of type typ and returns
// their ids in order: in this process where it can, else with one git
// process.
func (r *Repo) WriteObjects(ctx context.Context, typ string, data [][]byte) ([]string, error) {
	if len(data) == 0 {
		return nil, nil
	}
	if r.fastOK() {
		ids := make([]string, len(data))
		var err error
		for i, d := range data {
			if ids[i], err = r.writeObject(typ, d); err != nil {
				return nil, err
			}
		}
		return ids, nil
	}
	if typ != "blob" {
		return nil, fmt.Errorf("writing a %s needs the in-process object writer", typ)
	}
	return r.writeBlobsData(ctx, data)
}

// readLoose returns the type and content of a loose object; ok is false
// when there is no loose object id.
func (r *Repo) readLoose(id string) (typ string, data []byte, ok bool, err error) {
	if !r.validID(id) {
		return "", nil, false, fmt.Errorf("not an object id: %q", id)
	}
	f, err := os.Open(r.loosePath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, false, nil
	}
	if err != nil {
		return "", nil, false, err
	}
	defer f.Close()
	zr, err := zlib.NewReader(bufio.NewReader(f))
	if err != nil {
		return "", nil, false, fmt.Errorf("loose object %s: %w", id, err)
	}
	all, err := io.ReadAll(io.LimitReader(zr, 64<<20))
	if err != nil {
		return "", nil, false, fmt.Errorf("loose object %s: %w", id, err)
	}
	head, body, found := bytes.Cut(all, []byte{0})
	t, size, _ := strings.Cut(string(head), " ")
	if n, err := strconv.Atoi(size); !found || err != nil || n != len(body) {
		return "", nil, false, fmt.Errorf("loose object %s: malformed header", id)
	}
	return t, body, true, nil
}

// looseType reads only the header of a loose object.
func (r *Repo) looseType(id string) (string, bool) {
	f, err := os.Open(r.loosePath(id))
	if err != nil {
		return "", false
	}
	defer f.Close()
	zr, err := zlib.NewReader(bufio.NewReaderSize(f, 512))
	if err != nil {
		return "", false
	}
	var buf [32]byte
	n, _ := io.ReadFull(zr, buf[:])
	t, _, ok := strings.Cut(string(buf[:n]), " ")
	return t, ok
}

// packedType looks id up in the pack indexes (version 2) and reads the
// type of its entry; a deltified entry, or an index it cannot read,
// answers "" (unknown).
func (r *Repo) packedType(id string) string {
	raw, err := hex.DecodeString(id)
	if err != nil {
		return ""
	}
	idxs, _ := filepath.Glob(filepath.Join(r.CommonDir, "objects", "pack", "pack-*.idx"))
	for _, idx := range idxs {
		off, found, err := idxLookup(idx, raw)
		if err != nil || !found {
			continue
		}
		f, err := os.Open(strings.TrimSuffix(idx, ".idx") + ".pack")
		if err != nil {
			return ""
		}
		var b [1]byte
		_, err = f.ReadAt(b[:], int64(off))
		f.Close()
		if err != nil {
			return ""
		}
		switch (b[0] >> 4) & 7 {
		case 1:
			return "commit"
		case 2:
			return "tree"
		case 3:
			return "blob"
		case 4:
			return "tag"
		}
		return ""
	}
	return ""
}

// idxLookup finds raw in a version 2 pack index and returns its offset.
func idxLookup(path string, raw []byte) (uint64, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	var hdr [8 + 256*4]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		return 0, false, err
	}
	if !bytes.Equal(hdr[:4], []byte{0xff, 't', 'O', 'c'}) || binary.BigEndian.Uint32(hdr[4:8]) != 2 {
		return 0, false, errSlowPath
	}
	fan := func(i int) uint32 { return binary.BigEndian.Uint32(hdr[8+4*i:]) }
	n := fan(255)
	lo := uint32(0)
	if raw[0] > 0 {
		lo = fan(int(raw[0]) - 1)
	}
	hi := fan(int(raw[0]))
	hl := uint32(len(raw))
	names := int64(8 + 256*4)
	buf := make([]byte, hl)
	for lo < hi {
		mid := (lo + hi) / 2
		if _, err := f.ReadAt(buf, names+int64(mid)*int64(hl)); err != nil {
			return 0, false, err
		}
		switch c := bytes.Compare(buf, raw); {
		case c == 0:
			offs := names + int64(n)*int64(hl) + int64(n)*4
			var o [8]byte
			if _, err := f.ReadAt(o[:4], offs+int64(mid)*4); err != nil {
				return 0, false, err
			}
			v := binary.BigEndian.Uint32(o[:4])
			if v&0x80000000 == 0 {
				return uint64(v), true, nil
			}
			if _, err := f.ReadAt(o[:], offs+int64(n)*4+int64(v&0x7fffffff)*8); err != nil {
				return 0, false, err
			}
			return binary.BigEndian.Uint64(o[:]), true, nil
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false, nil
}

// ObjectTypes returns the type of each id ("" when it does not exist):
// loose objects and undeltified packed ones are read here, the rest by one
// git cat-file process.
func (r *Repo) ObjectTypes(ctx context.Context, ids []string) (map[string]string, error) {
	out := map[string]string{}
	var ask []string
	for _, id := range ids {
		if !r.validID(id) {
			out[id] = ""
			continue
		}
		if r.fastOK() {
			if t, ok := r.looseType(id); ok {
				out[id] = t
				continue
			}
			if t := r.packedType(id); t != "" {
				out[id] = t
				continue
			}
		}
		ask = append(ask, id)
	}
	if len(ask) == 0 {
		return out, nil
	}
	res, err := r.run(ctx, cmd{args: []string{"cat-file", "--batch-check=%(objectname) %(objecttype)"}, stdin: strings.NewReader(strings.Join(ask, "\n") + "\n")})
	if err != nil {
		return nil, err
	}
	for _, l := range strings.Split(strings.TrimRight(string(res), "\n"), "\n") {
		f := strings.Fields(l)
		if len(f) == 2 && r.validID(f[0]) && f[1] != "missing" {
			out[f[0]] = f[1]
		}
	}
	for _, id := range ask {
		if _, ok := out[id]; !ok {
			out[id] = ""
		}
	}
	return out, nil
}

// writeTreeEntries writes a tree of entries named by their ids (all names
// of equal length, so git's order is plain byte order) in this process.
func (r *Repo) writeIDTree(entries [][2]string) (string, error) {
	sort.Slice(entries, func(i, j int) bool { return entries[i][1] < entries[j][1] })
	var b bytes.Buffer
	for _, e := range entries {
		raw, err := hex.DecodeString(e[1])
		if err != nil {
			return "", err
		}
		b.WriteString(e[0] + " " + e[1] + "\x00")
		b.Write(raw)
	}
	return r.writeObject("tree", b.Bytes())
}

// refsFast reads the refs under prefixes (each ending in "/") from the ref
// files: loose refs override packed-refs. ok is false when it met anything
// it leaves to git (a symbolic ref, a malformed file).
func (r *Repo) refsFast(prefixes []string) (map[string]string, bool) {
	if !r.fastOK() {
		return nil, false
	}
	packed := filepath.Join(r.CommonDir, "packed-refs")
	for attempt := 0; attempt < 3; attempt++ {
		st1, err1 := os.Stat(packed)
		m := map[string]string{}
		if err1 == nil {
			b, err := os.ReadFile(packed)
			if err != nil {
				return nil, false
			}
			if !r.packedRefs(b, func(name, id string) {
				for _, p := range prefixes {
					if strings.HasPrefix(name, p) {
						m[name] = id
						break
					}
				}
			}) {
				return nil, false
			}
		} else if !errors.Is(err1, fs.ErrNotExist) {
			return nil, false
		}
		for _, p := range outermost(prefixes) {
			if !r.walkLoose(strings.TrimSuffix(p, "/"), m) {
				return nil, false
			}
		}
		st2, err2 := os.Stat(packed)
		same := (err1 != nil && err2 != nil) || (err1 == nil && err2 == nil && os.SameFile(st1, st2) && st1.ModTime().Equal(st2.ModTime()) && st1.Size() == st2.Size())
		if same {
			return m, true
		}
	}
	return nil, false
}

// packedRefs calls each with every ref of a packed-refs file's text (peeled
// lines and the header left out): the one packed-refs reader. It returns
// false, having stopped, at a line it does not understand (git should
// answer then).
func (r *Repo) packedRefs(b []byte, each func(name, id string)) bool {
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" || l[0] == '#' || l[0] == '^' {
			continue
		}
		id, name, ok := strings.Cut(l, " ")
		if !ok || !r.validID(id) {
			return false
		}
		each(name, id)
	}
	return true
}

// walkLoose adds the loose refs under name (a folder of the common dir).
// A folder whose modification time and inode are those of an earlier
// walk in this process is not read again (git writes a ref by renaming
// its lock into place, which changes its folder's time), unless that time
// was too recent to tell a later change in the same clock tick apart.
func (r *Repo) walkLoose(name string, into map[string]string) bool {
	dir := filepath.Join(r.CommonDir, filepath.FromSlash(name))
	fi, err := os.Stat(dir)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
	}
	if !fi.IsDir() {
		return true
	}
	stamp := refDirStamp{mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		stamp.ino = uint64(st.Ino)
	}
	refDirs.Lock()
	e, ok := refDirs.m[dir]
	refDirs.Unlock()
	if ok && e.stamp == stamp {
		for n, v := range e.files {
			into[n] = v
		}
		for _, sub := range e.subdirs {
			if !r.walkLoose(sub, into) {
				return false
			}
		}
		return true
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return true
	}
	if err != nil {
		return false
	}
	e = &refDir{stamp: stamp, files: map[string]string{}}
	for _, d := range ents {
		n := name + "/" + d.Name()
		if strings.HasSuffix(d.Name(), ".lock") || !goodRefComponent(d.Name()) {
			continue
		}
		switch {
		case d.IsDir():
			e.subdirs = append(e.subdirs, n)
			if !r.walkLoose(n, into) {
				return false
			}
		case d.Type().IsRegular():
			b, err := readSmall(filepath.Join(r.CommonDir, filepath.FromSlash(n)))
			if err != nil {
				return false // moved while read (or unreadable): let git answer
			}
			v := strings.TrimRight(string(b), "\n")
			if !r.validID(v) {
				return false // a symbolic ref, or a broken one
			}
			into[n] = v
			e.files[n] = v
		default:
			return false
		}
	}
	// Kept only when the folder's time is safely in the past: a change
	// within the same tick of the file system's clock would not show.
	if time.Now().UnixNano()-stamp.mtime > int64(time.Second) {
		refDirs.Lock()
		if refDirs.m == nil {
			refDirs.m = map[string]*refDir{}
		}
		refDirs.m[dir] = e
		refDirs.Unlock()
	}
	return true
}

type refDirStamp struct {
	ino   uint64
	mtime int64
}

// refDir is what one walk found in a ref folder.
type refDir struct {
	stamp   refDirStamp
	files   map[string]string
	subdirs []string
}

var refDirs struct {
	sync.Mutex
	m map[string]*refDir
}

// outermost drops the prefixes another one of them contains.
func outermost(prefixes []string) []string {
	var out []string
	for _, p := range prefixes {
		inner := false
		for _, q := range prefixes {
			if q != p && strings.HasPrefix(p, q) {
				inner = true
			}
		}
		if !inner {
			out = append(out, p)
		}
	}
	return out
}

// readSmall reads a small file (a loose ref) with open, read, close only.
func readSmall(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var buf [256]byte
	n, err := syscall.Read(fd, buf[:])
	if err != nil {
		return nil, err
	}
	if n == len(buf) {
		return nil, errSlowPath
	}
	return buf[:n], nil
}

// goodRefComponent leaves out names git would not take for a ref.
func goodRefComponent(s string) bool {
	if s == "" || s[0] == '.' || strings.Contains(s, "..") || strings.HasSuffix(s, ".") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte(" ~^:?*[\\", c) >= 0 {
			return false
		}
	}
	return !strings.Contains(s, "@{")
}

// RefsAndHead reads the refs under prefixes and HEAD ("ref: <branch>" or a
// commit id, "" when unreadable as either), from the files when it can,
// else with git.
func (r *Repo) RefsAndHead(ctx context.Context, prefixes ...string) (map[string]string, string, error) {
	if m, ok := r.refsFast(prefixes); ok {
		if h, ok := r.headFast(); ok {
			return m, h, nil
		}
	}
	m, err := r.RefsUnder(ctx, prefixes...)
	if err != nil {
		return nil, "", err
	}
	h, err := r.HeadTargetKnowing(ctx, m)
	return m, h, err
}

// headFast reads HEAD from its file.
func (r *Repo) headFast() (string, bool) {
	if !r.fastOK() {
		return "", false
	}
	b, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD"))
	if err != nil {
		return "", false
	}
	v := strings.TrimRight(string(b), "\n")
	if t, ok := strings.CutPrefix(v, "ref: "); ok && strings.HasPrefix(t, "refs/") && !strings.ContainsAny(t, " \n") {
		return "ref: " + t, true
	}
	if r.validID(v) {
		return v, true
	}
	return "", false
}

// ReadRefFast is ReadRef answered from the ref files when it can.
func (r *Repo) ReadRefFast(ctx context.Context, name string) (string, bool, error) {
	if r.fastOK() && strings.HasPrefix(name, "refs/") {
		if v, ok, handled := r.readOneRef(name); handled {
			return v, ok, nil
		}
	}
	return r.ReadRef(ctx, name)
}

// readOneRef reads one ref: its loose file, else packed-refs. handled is
// false when git should answer.
func (r *Repo) readOneRef(name string) (v string, ok, handled bool) {
	b, err := os.ReadFile(filepath.Join(r.CommonDir, filepath.FromSlash(name)))
	if err == nil {
		v := strings.TrimRight(string(b), "\n")
		if r.validID(v) {
			return v, true, true
		}
		return "", false, false
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", false, false
	}
	pb, err := os.ReadFile(filepath.Join(r.CommonDir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		// It may have been packed and pruned between the two reads.
		if _, err := os.Stat(filepath.Join(r.CommonDir, filepath.FromSlash(name))); err == nil {
			return "", false, false
		}
		return "", false, true
	}
	if err != nil {
		return "", false, false
	}
	found := ""
	if !r.packedRefs(pb, func(n, id string) {
		if n == name {
			found = id
		}
	}) {
		return "", false, false
	}
	if found != "" {
		return found, true, true
	}
	if _, err := os.Stat(filepath.Join(r.CommonDir, filepath.FromSlash(name))); err == nil {
		return "", false, false
	}
	return "", false, true
}

// SetRefFast is SetRef (compare-and-swap; old ZeroID: must not exist)
// done in this process with git's lock protocol (<ref>.lock created
// exclusively, compared, written, renamed into place), for refs that keep
// no reflog. It falls back to git when it cannot.
func (r *Repo) SetRefFast(ctx context.Context, name, newID, old string) error {
	if !r.fastOK() || !strings.HasPrefix(name, "refs/") || !r.validID(newID) || !r.validID(old) {
		return r.SetRef(ctx, SetRefRequest{Name: name, New: newID, Old: old})
	}
	for _, c := range strings.Split(name, "/") {
		if !goodRefComponent(c) || strings.HasSuffix(c, ".lock") {
			return fmt.Errorf("not a ref name: %q", name)
		}
	}
	p := filepath.Join(r.CommonDir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return r.SetRef(ctx, SetRefRequest{Name: name, New: newID, Old: old})
	}
	lock := p + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%w: %s is locked", ErrRefConflict, name)
	}
	if err != nil {
		return r.SetRef(ctx, SetRefRequest{Name: name, New: newID, Old: old})
	}
	fail := func(err error) error {
		f.Close()
		os.Remove(lock)
		return err
	}
	cur, exists, handled := r.readOneRef(name)
	if !handled {
		fail(nil)
		return r.SetRef(ctx, SetRefRequest{Name: name, New: newID, Old: old})
	}
	if (old == r.ZeroID() && exists) || (old != r.ZeroID() && cur != old) {
		return fail(fmt.Errorf("%w: %s is at %q, expected %s", ErrRefConflict, name, cur, old))
	}
	if _, err := f.WriteString(newID + "\n"); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(lock)
		return err
	}
	if err := os.Rename(lock, p); err != nil {
		os.Remove(lock)
		return err
	}
	return nil
}

// IndexFile is the user's index as read once: its bytes, its file's
// identity (to tell later whether it was replaced) and, when its
// cache-tree covers it whole, its tree.
type IndexFile struct {
	Data   []byte
	Absent bool
	stat   fs.FileInfo
	// Tree is the index's tree when it is known without a git process
	// ("" otherwise). Plain is false when the index holds what a tree
	// cannot (conflict stages, intent-to-add or skip-worktree entries, a
	// split or sparse index): its bytes are then what to keep.
	Tree  string
	Plain bool
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
	data := make([]byte, st.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	ix := &IndexFile{Data: data, stat: st}
	ix.Tree, ix.Plain = indexCacheTree(data, r.hashLen())
	if ix.Tree != "" && !r.hasObject(ix.Tree) {
		ix.Tree = ""
	}
	return ix, nil
}

// Unchanged reports whether the index file is still the one read.
func (ix *IndexFile) Unchanged(r *Repo) bool {
	st, err := os.Stat(r.IndexPath())
	if ix.Absent {
		return errors.Is(err, fs.ErrNotExist)
	}
	return err == nil && os.SameFile(st, ix.stat) && st.ModTime().Equal(ix.stat.ModTime()) && st.Size() == ix.stat.Size()
}

// hasObject reports whether id is in the object store (loose, or in a
// pack's index), as far as this process can tell.
func (r *Repo) hasObject(id string) bool {
	if !r.fastOK() || !r.validID(id) {
		return false
	}
	if _, err := os.Lstat(r.loosePath(id)); err == nil {
		return true
	}
	raw, _ := hex.DecodeString(id)
	idxs, _ := filepath.Glob(filepath.Join(r.CommonDir, "objects", "pack", "pack-*.idx"))
	for _, idx := range idxs {
		if _, found, err := idxLookup(idx, raw); err == nil && found {
			return true
		}
	}
	return false
}

// indexEntry is one entry of an index file as walkIndex meets it.
type indexEntry struct {
	mode  uint32
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

// ReadCommit returns a commit's parents and message: read here when it is
// a loose object, else by git.
func (r *Repo) ReadCommit(ctx context.Context, id string) (parents []string, msg string, err error) {
	if r.fastOK() {
		typ, data, ok, err := r.readLoose(id)
		if err == nil && ok && typ == "commit" {
			head, body, _ := bytes.Cut(data, []byte("\n\n"))
			for _, l := range strings.Split(string(head), "\n") {
				if p, ok := strings.CutPrefix(l, "parent "); ok {
					parents = append(parents, p)
				}
			}
			return parents, strings.TrimRight(string(body), "\n"), nil
		}
	}
	out, err := r.git(ctx, "log", "-1", "--no-show-signature", "--format=%P%x00%B", "--end-of-options", id, "--")
	if err != nil {
		return nil, "", err
	}
	ps, m, _ := strings.Cut(string(out), "\x00")
	return strings.Fields(ps), strings.TrimRight(m, "\n"), nil
}
