package gitstore

// This file holds the object store read and written in this process
// (loose objects, pack index lookups), and the one rule for when that is
// allowed instead of asking git.

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
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

// The functions below read and write git's on-disk formats in this process, for the
// operation log's recording (which runs around every mutating command and
// must add almost nothing to it): loose objects (read here, written by
// writeLooseObject), the
// type of an object in a pack (through its .idx), loose and packed refs
// (read, and a compare-and-swap update with git's own .lock protocol), HEAD,
// and the cache-tree of an index file. Each reports ok=false (or
// errSlowPath) when the repository uses something it does not handle (the
// reftable format, alternates, a shared repository's permissions, a
// config that mentions fsync, a symbolic ref, a deltified object: see
// fastOK), and the caller asks git instead.

// errSlowPath says: ask git, this process does not handle the case.
var errSlowPath = errors.New("not handled in-process")

// InProcess reports whether this process reads and writes git's files
// itself in this repository (fastOK): callers that read ref files directly
// read them through git when it says no (reftable, for one).
func (r *Store) InProcess() bool { return r.fastOK() }

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
// answer is worked out once per Store value.
func (r *Store) fastOK() bool {
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

func (r *Store) fastAllowed() bool {
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
	if !r.ConfigMayMention("sharedrepository", "fsync") {
		return true
	}
	// Some file mentions one of them or includes another file (a work
	// identity through includeIf is common): ask git itself, which follows
	// includes, whether either setting is in force. One git process here
	// spares the ten or so the slow path costs.
	set, err := r.Git.ConfigGetRegexp(context.Background(), `^core\.(sharedrepository|fsync)`)
	return err == nil && len(set) == 0
}

func (r *Store) loosePath(id string) string {
	return filepath.Join(r.CommonDir, "objects", id[:2], id[2:])
}

// looseWriters is how many loose objects WriteObjects writes at once.
const looseWriters = 4

// WriteObjects stores each of data as an object of type typ and returns
// their ids in order: in this process where it can, else with one git
// process.
func (r *Store) WriteObjects(ctx context.Context, typ string, data [][]byte) ([]string, error) {
	if len(data) == 0 {
		return nil, nil
	}
	if r.fastOK() {
		ids := make([]string, len(data))
		for i, d := range data {
			ids[i] = r.ObjectID(typ, d)
		}
		if err := writeLooseObjects(filepath.Join(r.CommonDir, "objects"), typ, ids, data); err != nil {
			return nil, err
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
func (r *Store) readLoose(id string) (typ string, data []byte, ok bool, err error) {
	if !r.validID(id) {
		return "", nil, false, fmt.Errorf("not an object id: %q", id)
	}
	f, err := openObjectFile(r.loosePath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, false, nil
	}
	if err != nil {
		return "", nil, false, err
	}
	defer f.Close()
	// The compressed object is read whole (it is small), then inflated
	// into a body of the size its header gives: no growing buffers.
	var src io.Reader = bufio.NewReader(f)
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 && fi.Size() <= 1<<20 {
		raw := make([]byte, fi.Size())
		if _, err := io.ReadFull(f, raw); err != nil {
			return "", nil, false, fmt.Errorf("loose object %s: %w", id, err)
		}
		src = bytes.NewReader(raw)
	}
	zr, err := getZlibReader(src)
	if err != nil {
		return "", nil, false, fmt.Errorf("loose object %s: %w", id, err)
	}
	defer zlibReaders.Put(zr)
	var hbuf [32]byte
	head := hbuf[:0]
	var one [1]byte
	for {
		if _, err := io.ReadFull(zr, one[:]); err != nil {
			return "", nil, false, fmt.Errorf("loose object %s: %w", id, err)
		}
		if one[0] == 0 {
			break
		}
		if len(head) == len(hbuf) {
			return "", nil, false, fmt.Errorf("loose object %s: malformed header", id)
		}
		head = append(head, one[0])
	}
	t, size, _ := strings.Cut(string(head), " ")
	n, err := strconv.Atoi(size)
	if err != nil || n < 0 || n > 64<<20 {
		return "", nil, false, fmt.Errorf("loose object %s: malformed header", id)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(zr, body); err != nil {
		return "", nil, false, fmt.Errorf("loose object %s: %w", id, err)
	}
	// Nothing may follow the body (as before: the header's size is the
	// content's).
	if k, err := zr.Read(one[:]); k != 0 || (err != io.EOF && err != nil) {
		if err == nil || err == io.EOF {
			err = errors.New("malformed header")
		}
		return "", nil, false, fmt.Errorf("loose object %s: %w", id, err)
	}
	return t, body, true, nil
}

// looseInfo reads the header of a loose object: its type and size.
func (r *Store) looseInfo(id string) (ObjectInfo, bool) {
	f, err := openObjectFile(r.loosePath(id))
	if err != nil {
		return ObjectInfo{}, false
	}
	defer f.Close()
	zr, err := getZlibReader(bufio.NewReaderSize(f, 512))
	if err != nil {
		return ObjectInfo{}, false
	}
	defer zlibReaders.Put(zr)
	var buf [32]byte
	n, _ := io.ReadFull(zr, buf[:])
	head, _, found := bytes.Cut(buf[:n], []byte{0})
	t, size, ok := strings.Cut(string(head), " ")
	sz, err := strconv.ParseInt(size, 10, 64)
	if !found || !ok || err != nil || sz < 0 {
		return ObjectInfo{}, false
	}
	switch t {
	case "blob", "tree", "commit", "tag":
		return ObjectInfo{Type: t, Size: sz}, true
	}
	return ObjectInfo{}, false
}

// packedAt finds id in the packs' indexes (version 2): the pack holding
// it, open, and the offset of its entry; ok is false when no index it can
// read names it. The pack stays open until release is called (once).
func (r *Store) packedAt(id string) (pack *os.File, off int64, release func(), ok bool) {
	raw, err := hex.DecodeString(id)
	if err != nil {
		return nil, 0, nil, false
	}
	packsAcquire()
	packs, cached := packsOf(r.CommonDir, false)
	for {
		for _, p := range packs {
			if p == nil {
				continue
			}
			o, found, err := p.lookup(raw)
			if err == nil && found {
				return p.pack, int64(o), packsRelease, true
			}
		}
		if !cached {
			packsRelease()
			return nil, 0, nil, false
		}
		// Not in the packs listed a moment ago: list them again.
		packs, cached = packsOf(r.CommonDir, true)
	}
}

// packList remembers the packs of the repositories this process reads
// objects of (a few, the latest used), each for a moment: a command
// reading many objects here lists the pack folder once, not once per
// object, and opens each pack and its index once (its fan-out table read
// once), not once per object. An object found in none of them makes
// packedAt list the folder again (a pack made meanwhile). A pack that is
// no longer listed (repacked away) is closed, but only once no read is in
// progress (readers), so that a read never loses its file half-way; until
// then this process reads the pack and index it opened, a consistent
// pair. Whatever is read here is checked against the object's id, so none
// of this can give a wrong answer: at worst git is asked.
var packList struct {
	sync.Mutex
	dirs    map[string]*packDir
	readers int         // lookups and reads in progress (packsAcquire)
	closing []io.Closer // files dropped while readers were at work
}

// packDir is the listing of one repository's packs.
type packDir struct {
	at    time.Time
	used  time.Time
	packs []*packFile          // in listing order; nil for one that did not open
	open  map[string]*packFile // by index path
}

// maxPackDirs bounds the repositories whose packs stay open.
const maxPackDirs = 4

// packFile is an open pack and its version 2 index.
type packFile struct {
	idx  packIndex // mapped into memory where it can be, else the file
	pack *os.File
	fan  [256]uint32 // the index's fan-out table
}

// packsAcquire and packsRelease bracket a use of packList's files.
func packsAcquire() {
	packList.Lock()
	packList.readers++
	packList.Unlock()
}

func packsRelease() {
	packList.Lock()
	defer packList.Unlock()
	packList.readers--
	if packList.readers == 0 {
		for _, f := range packList.closing {
			f.Close()
		}
		packList.closing = nil
	}
}

// dropPack closes p's files, or has them closed when no read is at work.
func dropPack(p *packFile) {
	if p == nil {
		return
	}
	if packList.readers == 0 {
		p.idx.Close()
		p.pack.Close()
		return
	}
	packList.closing = append(packList.closing, p.idx, p.pack)
}

// packsOf lists the packs of commonDir; cached reports a list remembered
// from earlier (fresh asks for a new listing). The caller holds a use
// (packsAcquire).
func packsOf(commonDir string, fresh bool) (packs []*packFile, cached bool) {
	packList.Lock()
	defer packList.Unlock()
	now := time.Now()
	d := packList.dirs[commonDir]
	if d != nil && !fresh && now.Sub(d.at) < time.Second {
		d.used = now
		return d.packs, true
	}
	idxs, _ := filepath.Glob(filepath.Join(commonDir, "objects", "pack", "pack-*.idx"))
	nd := &packDir{at: now, used: now, open: map[string]*packFile{}, packs: make([]*packFile, len(idxs))}
	for i, idx := range idxs {
		p, ok := (*packFile)(nil), false
		if d != nil {
			p, ok = d.open[idx]
		}
		if !ok || p == nil {
			p = openPack(idx) // one that did not open is tried again
		}
		nd.packs[i], nd.open[idx] = p, p
	}
	if d != nil {
		for idx, p := range d.open {
			if _, ok := nd.open[idx]; !ok {
				dropPack(p)
			}
		}
	}
	if packList.dirs == nil {
		packList.dirs = map[string]*packDir{}
	}
	packList.dirs[commonDir] = nd
	for len(packList.dirs) > maxPackDirs {
		oldest := ""
		for dir, e := range packList.dirs {
			if dir != commonDir && (oldest == "" || e.used.Before(packList.dirs[oldest].used)) {
				oldest = dir
			}
		}
		for _, p := range packList.dirs[oldest].open {
			dropPack(p)
		}
		delete(packList.dirs, oldest)
	}
	return nd.packs, false
}

// openPack opens the index idx (version 2, its fan-out table read) and
// its pack; nil when either cannot be opened or the index is not one
// read here.
func openPack(idx string) *packFile {
	f, err := openObjectFile(idx)
	if err != nil {
		return nil
	}
	var hdr [8 + 256*4]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil || !bytes.Equal(hdr[:4], []byte{0xff, 't', 'O', 'c'}) || binary.BigEndian.Uint32(hdr[4:8]) != 2 {
		f.Close()
		return nil
	}
	pack, err := openObjectFile(strings.TrimSuffix(idx, ".idx") + ".pack")
	if err != nil {
		f.Close()
		return nil
	}
	p := &packFile{idx: mapIndex(f), pack: pack}
	for i := range p.fan {
		p.fan[i] = binary.BigEndian.Uint32(hdr[8+4*i:])
	}
	return p
}

// packIndex is a pack's index as read here: ReadAt at any offset.
type packIndex interface {
	io.ReaderAt
	io.Closer
}

// mappedIndex is a pack index mapped read-only into memory, as git maps
// them: a lookup reads the names and offsets it needs from memory, with
// no system call (an existence check of a packed object cost one pread
// before, and a command may check hundreds). git never changes an index
// file in place (a new one is written aside and renamed), so the mapping
// holds the bytes the file was opened with, as the open file did.
type mappedIndex struct{ b []byte }

// mapIndex maps the index file f and closes it; where the mapping fails
// the file itself is kept and read with pread.
func mapIndex(f *os.File) packIndex {
	st, err := f.Stat()
	if err != nil || st.Size() <= 0 || st.Size() != int64(int(st.Size())) {
		return f
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return f
	}
	f.Close()
	return &mappedIndex{b: b}
}

func (m *mappedIndex) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(m.b)) {
		return 0, io.EOF
	}
	n := copy(p, m.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Close unmaps the index; no read may be at work (see dropPack).
func (m *mappedIndex) Close() error {
	b := m.b
	m.b = nil
	if b == nil {
		return nil
	}
	return syscall.Munmap(b)
}

// ObjectInfoInProcess describes a loose object (its header) or a packed
// one (its entry's header, a delta's own first bytes and its chain's
// headers: see packEntryInfo); ok is false for anything else (an object
// not found here; a repository fastOK leaves to git).
func (r *Store) ObjectInfoInProcess(id string) (ObjectInfo, bool) {
	if !r.fastOK() || !r.validID(id) || r.MayReplace() {
		return ObjectInfo{}, false
	}
	return r.ObjectInfoHere(id)
}

// ObjectInfoHere is ObjectInfoInProcess once its repository-wide checks
// hold (a caller describing many objects makes them once).
func (r *Store) ObjectInfoHere(id string) (ObjectInfo, bool) {
	return r.objectInfoDepth(id, 0)
}

// objectInfoDepth is ObjectInfoHere for the base of a delta depth deltas
// down.
func (r *Store) objectInfoDepth(id string, depth int) (ObjectInfo, bool) {
	if info, ok := r.looseInfo(id); ok {
		return info, true
	}
	if _, err := os.Lstat(r.loosePath(id)); err == nil {
		return ObjectInfo{}, false // loose but unreadable here
	}
	if depth > maxDeltaDepth {
		return ObjectInfo{}, false
	}
	pack, off, release, ok := r.packedAt(id)
	if !ok {
		return ObjectInfo{}, false
	}
	defer release()
	return r.packEntryInfo(pack, off, depth)
}

// maxBucketRead is the most of an index's object names lookup reads at
// once: the names sharing an id's first byte (800 bytes in a repository
// of 10,000 objects, 23 KB at 300,000), then searched in memory; a larger
// bucket is searched a name at a time.
const maxBucketRead = 64 << 10

// lookup finds raw in the pack's index and returns its entry's offset.
func (p *packFile) lookup(raw []byte) (uint64, bool, error) {
	pos, found, err := p.find(raw)
	if err != nil || !found {
		return 0, false, err
	}
	return p.offset(pos, len(raw))
}

// find says whether the pack's index names raw, and where in its list.
func (p *packFile) find(raw []byte) (uint32, bool, error) {
	n := p.fan[255]
	lo := uint32(0)
	if raw[0] > 0 {
		lo = p.fan[raw[0]-1]
	}
	hi := p.fan[raw[0]]
	if hi < lo || hi > n {
		return 0, false, errSlowPath
	}
	hl := int64(len(raw))
	names := int64(8 + 256*4)
	var k int
	var found bool
	if int64(hi-lo)*hl <= maxBucketRead {
		var bucket []byte
		if m, ok := p.idx.(*mappedIndex); ok && names+int64(hi)*hl <= int64(len(m.b)) {
			bucket = m.b[names+int64(lo)*hl : names+int64(hi)*hl]
		} else {
			bucket = make([]byte, int64(hi-lo)*hl)
			if _, err := p.idx.ReadAt(bucket, names+int64(lo)*hl); err != nil {
				return 0, false, err
			}
		}
		k, found = sort.Find(int(hi-lo), func(i int) int {
			return bytes.Compare(raw, bucket[int64(i)*hl:int64(i+1)*hl])
		})
	} else {
		buf := make([]byte, hl)
		var rerr error
		k, found = sort.Find(int(hi-lo), func(i int) int {
			if rerr != nil {
				return 0
			}
			_, rerr = p.idx.ReadAt(buf, names+int64(lo+uint32(i))*hl)
			return bytes.Compare(raw, buf)
		})
		if rerr != nil {
			return 0, false, rerr
		}
	}
	if !found {
		return 0, false, nil
	}
	return lo + uint32(k), true, nil
}

// offset is the pack offset of the entry at pos of the index's list (ids
// of hashLen bytes).
func (p *packFile) offset(pos uint32, hashLen int) (uint64, bool, error) {
	n := p.fan[255]
	hl := int64(hashLen)
	names := int64(8 + 256*4)
	offs := names + int64(n)*hl + int64(n)*4
	var o [8]byte
	if _, err := p.idx.ReadAt(o[:4], offs+int64(pos)*4); err != nil {
		return 0, false, err
	}
	v := binary.BigEndian.Uint32(o[:4])
	if v&0x80000000 == 0 {
		return uint64(v), true, nil
	}
	if _, err := p.idx.ReadAt(o[:], offs+int64(n)*4+int64(v&0x7fffffff)*8); err != nil {
		return 0, false, err
	}
	return binary.BigEndian.Uint64(o[:]), true, nil
}

// openObjectFile opens a file of the object folder (a loose object, a
// pack or its index) for reading, as os.Open does but without offering
// it to the runtime's poller, which os.Open tries for every file and a
// regular file always refuses: four system calls fewer for each of the
// hundreds of objects a command may read here.
func openObjectFile(path string) (*os.File, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}

// ReadSmall reads a small file (a loose ref) with open, read, close only.
func ReadSmall(path string) ([]byte, error) {
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

// HasObjectHere reports whether id is in the object store (loose, or in a
// pack's index), as far as this process can tell.
func (r *Store) HasObjectHere(id string) bool {
	if !r.fastOK() || !r.validID(id) {
		return false
	}
	// The packs as listed a moment ago first (where most objects are,
	// found without a path lookup), then the loose object, then the
	// packs listed again (one made meanwhile).
	if r.inListedPacks(id) {
		return true
	}
	if _, err := os.Lstat(r.loosePath(id)); err == nil {
		return true
	}
	_, _, release, ok := r.packedAt(id)
	if ok {
		release()
	}
	return ok
}

// inListedPacks says whether an index of the packs last listed (see
// packList) names id; false says nothing about the others.
func (r *Store) inListedPacks(id string) bool {
	raw, err := hex.DecodeString(id)
	if err != nil {
		return false
	}
	packsAcquire()
	defer packsRelease()
	packs, _ := packsOf(r.CommonDir, false)
	for _, p := range packs {
		if p == nil {
			continue
		}
		if _, found, err := p.find(raw); err == nil && found {
			return true
		}
	}
	return false
}

// Loose objects are written in this process the way git writes them by
// default: a loose object (zlib) in a temporary file of its fan-out folder,
// made read-only and linked (else renamed) to its name, with no fsync. When
// it may is decided in one place, fastOK: otherwise git writes them.

// looseObjectDir is the object folder where this process may write loose
// objects itself, or "" when git must write them (see fastOK).
func (r *Store) looseObjectDir() string {
	if !r.fastOK() {
		return ""
	}
	return filepath.Join(r.CommonDir, "objects")
}

// WriteObject stores data as a loose object of type typ and returns its
// id. The caller has checked fastOK.
func (r *Store) WriteObject(typ string, data []byte) (string, error) {
	id := r.ObjectID(typ, data)
	return id, writeLooseObject(filepath.Join(r.CommonDir, "objects"), typ, id, data)
}

// writeLooseObject stores an object of the given type and body under id
// (computed by the caller from the same bytes) in the object folder dir,
// unless a loose object of that name is there already. A packed copy is
// not looked for: a second, loose copy is harmless and gc drops it. It is
// the one loose-object writer, with git's default permissions (the fan-out
// folder 0777 and the file 0444, less the umask) and git's default of no
// fsync for loose objects; fastOK leaves a shared repository, or a config
// that mentions fsync, to git.
func writeLooseObject(dir, typ, id string, body []byte) error {
	if len(id) < 4 {
		return fmt.Errorf("writing object: bad id %q", id)
	}
	fan := filepath.Join(dir, id[:2])
	final := filepath.Join(fan, id[2:])
	if _, err := os.Lstat(final); err == nil {
		return nil
	}
	var z bytes.Buffer
	zw := zlibWriters.Get().(*zlib.Writer)
	zw.Reset(&z)
	zw.Write(strconv.AppendInt([]byte(typ+" "), int64(len(body)), 10))
	zw.Write([]byte{0})
	zw.Write(body)
	err := zw.Close()
	zlibWriters.Put(zw)
	if err != nil {
		return err
	}
	f, err := createObjectTemp(fan)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.Mkdir(fan, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("writing object %s: %w", id, err)
		}
		f, err = createObjectTemp(fan)
	}
	if err != nil {
		return fmt.Errorf("writing object %s: %w", id, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(z.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("writing object %s: %w", id, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing object %s: %w", id, err)
	}
	// A link never replaces an object already there (another writer's).
	if err := os.Link(tmp, final); err != nil && !errors.Is(err, fs.ErrExist) {
		if err := os.Rename(tmp, final); err != nil {
			return fmt.Errorf("writing object %s: %w", id, err)
		}
	}
	return nil
}

// writeLooseObjects is writeLooseObject for each of bodies (ids[i] is
// bodies[i]'s id), a few at a time: a loose object costs a file creation
// and a link (0.15 to 0.3 ms each on an ext4 disk, most of it waiting in
// the kernel), and a command may write dozens (the trees along its paths).
func writeLooseObjects(dir, typ string, ids []string, bodies [][]byte) error {
	errs := make([]error, len(bodies))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(len(bodies), looseWriters) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(bodies); i = int(next.Add(1) - 1) {
				errs[i] = writeLooseObject(dir, typ, ids[i], bodies[i])
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// zlibWriters are reused from one loose object to the next: a new
// compressor allocates over a megabyte, which cost more than compressing
// the small objects a command writes (a few per checkpoint).
var zlibWriters = sync.Pool{New: func() any {
	w, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	return w
}}

// createObjectTemp creates a new temporary file in dir, read-only (0444
// less the umask, as git's temporary objects) but open for writing. Like
// openObjectFile it does not offer the file to the runtime's poller: a
// command may write dozens of objects.
func createObjectTemp(dir string) (*os.File, error) {
	for try := 0; ; try++ {
		path := filepath.Join(dir, "tmp_obj_"+strconv.FormatUint(rand.Uint64(), 36))
		fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, 0o444)
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.EEXIST && try < 100 {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}

func (r *Store) writeBlobsData(ctx context.Context, data [][]byte) ([]string, error) {
	if len(data) == 0 {
		return nil, nil
	}
	dir, err := os.MkdirTemp(r.GitDir, "nudgethis-op-blobs-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	paths := make([]string, len(data))
	for i, d := range data {
		paths[i] = filepath.Join(dir, fmt.Sprint(i))
		if err := os.WriteFile(paths[i], d, 0o600); err != nil {
			return nil, err
		}
	}
	return r.Git.HashFilesRaw(ctx, paths, true)
}

// WriteLooseObjects writes bodies as loose objects of type typ into the
// object folder dir (ids[i] is bodies[i]'s id), a few at a time.
func WriteLooseObjects(dir, typ string, ids []string, bodies [][]byte) error {
	return writeLooseObjects(dir, typ, ids, bodies)
}

// ReadLoose reads the loose object id; ok is false when there is none.
func (r *Store) ReadLoose(id string) (typ string, data []byte, ok bool, err error) {
	return r.readLoose(id)
}
