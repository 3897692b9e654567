package worktree

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/go-git/go-billy/v5"
)

// Batch writes many files together, with WriteFile's care but its costs
// paid once: each folder is opened (and checked to be the plain folder at
// its path) once for all the files in it, every new content goes to a temp
// file next to its target first, all temp files are fsynced at the same
// time (so the filesystem can commit them in one journal transaction
// instead of one per file), and only then is each renamed over its target
// by the caller, in the caller's order. Abort removes what was not renamed.
//
//	b := tree.NewBatch()
//	defer b.Close()
//	p, _ := b.Create("a/b.txt", false) // write the content to p
//	b.Sync()                           // every temp file on disk
//	b.Commit(p)                        // rename, one by one
type Batch struct {
	t       *Tree
	dirs    map[string]*dirHandle
	files   []*Pending
	created []string // folders made for new files, outermost first
	// stage, when set, is a folder (outside the work tree's files, on its
	// filesystem) where the temp files wait: a process killed before
	// renaming them leaves nothing next to the work tree's files.
	stage    *os.Root
	stageDir *os.File
	// Files whose content is complete are flushed, fsynced and closed by
	// workers in the background while the next ones are written, so that
	// only a bounded number is open at a time.
	queue   chan *Pending
	wg      sync.WaitGroup
	mu      sync.Mutex
	syncErr error
}

type dirHandle struct {
	fs       billy.Filesystem
	done     func()
	verified bool     // checked again right before the first rename into it
	file     *os.File // the folder itself, for renames from the stage
	fi       fs.FileInfo
	parent   *dirHandle
	base     string
}

// Pending is a temp file of a Batch, waiting to be renamed over its
// target. It is an io.Writer for the new content (buffered).
type Pending struct {
	Path      string
	dir       *dirHandle
	dirPath   string
	base, tmp string
	f         io.WriteCloser
	buf       *bufio.Writer
	exec      bool
	replace   bool        // a file was at Path: its bits are kept
	perm      fs.FileMode // for a replaced file: the bits to set
	synced    bool
	queued    bool
	committed bool
}

// Write adds to the new content.
func (p *Pending) Write(b []byte) (int, error) { return p.buf.Write(b) }

// NewBatch starts a batch of writes in t. With stage (an empty folder on
// the work tree's filesystem, outside its files: .nudgethis/stage/...),
// temp files are made there and renamed into their folders where the
// platform allows it; without, they are made next to their targets.
func (t *Tree) NewBatch(stage string) (*Batch, error) {
	b := &Batch{t: t, dirs: map[string]*dirHandle{}}
	if _, ok := t.fs.(*RootFS); !ok || stage == "" || !canRenameAt {
		return b, nil
	}
	r, err := os.OpenRoot(stage)
	if err != nil {
		return nil, err
	}
	d, err := r.Open(".")
	if err != nil {
		r.Close()
		return nil, err
	}
	b.stage, b.stageDir = r, d
	return b, nil
}

// maxOpenFolders bounds the folders a batch keeps open; past it, those
// not on the way to the folder being opened are closed (and reopened,
// and checked again, if needed later).
const maxOpenFolders = 512

// open returns folder dir ("" for the top level), opened through its
// parent's handle (each level one lstat and one open relative to the
// level above, never following a symlink, the handle checked to be the
// folder that was looked at), and cached. A missing folder is made when
// create is set (and remembered for Abort), else h is nil with blocker
// "" (absent). A leading path that is not a plain folder is reported as
// blocker and its kind, h nil.
func (b *Batch) open(dir string, create bool) (h *dirHandle, blocker string, kind Kind, err error) {
	if h, ok := b.dirs[dir]; ok {
		return h, "", Dir, nil
	}
	if dir == "" {
		h := &dirHandle{fs: b.t.fs, done: func() {}, verified: true}
		b.dirs[""] = h
		return h, "", Dir, nil
	}
	ph, blocker, kind, err := b.open(parent(dir), create)
	if ph == nil || err != nil {
		return nil, blocker, kind, err
	}
	base := dir[strings.LastIndexByte(dir, '/')+1:]
	fi, err := ph.fs.Lstat(base)
	if err != nil && notExist(err) && create {
		if err = ph.fs.MkdirAll(base, 0o777); err != nil {
			return nil, "", Absent, fmt.Errorf("creating folder %s: %w", dir, err)
		}
		b.created = append(b.created, dir)
		fi, err = ph.fs.Lstat(base)
	}
	if err != nil {
		if notExist(err) {
			return nil, "", Absent, nil
		}
		return nil, "", Absent, err
	}
	if k := kindOf(fi); k != Dir {
		return nil, dir, k, nil
	}
	sub, err := ph.fs.Chroot(base)
	if err != nil {
		return nil, "", Absent, fmt.Errorf("opening folder %s: %w", dir, err)
	}
	done := func() {
		if c, ok := sub.(io.Closer); ok {
			_ = c.Close()
		}
	}
	in, err := sub.Lstat(".")
	if err != nil {
		done()
		return nil, "", Absent, err
	}
	if !sameFile(in, fi) {
		done()
		return nil, dir, Dir, &BlockedError{Path: dir, Blocker: dir, Kind: Dir}
	}
	if b.stage != nil && len(b.dirs) >= maxOpenFolders {
		b.evict(dir)
	}
	h = &dirHandle{fs: sub, done: done, fi: in, parent: ph, base: base}
	b.dirs[dir] = h
	return h, "", Dir, nil
}

// evict closes the open folders that are not leading folders of dir.
func (b *Batch) evict(dir string) {
	keep := map[string]bool{"": true}
	for _, d := range leading(dir + "/") {
		keep[d] = true
	}
	for d, h := range b.dirs {
		if !keep[d] {
			h.close()
			delete(b.dirs, d)
		}
	}
}

func (h *dirHandle) close() {
	if h.file != nil {
		_ = h.file.Close()
	}
	h.done()
}

// verify checks, once per batch, that the open folder h is still the
// plain folder at its path: each level from the top, through the level
// above's handle.
func (b *Batch) verify(h *dirHandle, p string) error {
	if h.verified {
		return nil
	}
	if err := b.verify(h.parent, p); err != nil {
		return err
	}
	fi, err := h.parent.fs.Lstat(h.base)
	if err != nil || kindOf(fi) != Dir || !sameFile(fi, h.fi) {
		k := Absent
		if err == nil {
			k = kindOf(fi)
		}
		return &BlockedError{Path: p, Blocker: h.base, Kind: k}
	}
	h.verified = true
	return nil
}

// folder returns the opened folder dir of p, making it if missing.
func (b *Batch) folder(p, dir string) (*dirHandle, error) {
	h, blocker, kind, err := b.open(dir, true)
	if err != nil {
		return nil, err
	}
	if h == nil {
		return nil, &BlockedError{Path: p, Blocker: blocker, Kind: kind}
	}
	return h, nil
}

// Lstat is Tree.Lstat, looking through the batch's open folders.
func (b *Batch) Lstat(p string) (Entry, error) {
	if err := ValidPath(p); err != nil {
		return Entry{}, err
	}
	dir := parent(p)
	h, blocker, kind, err := b.open(dir, false)
	if err != nil {
		return Entry{}, err
	}
	if h == nil {
		return Entry{Kind: Absent, Blocker: blocker, BlockerKind: kind}, nil
	}
	fi, err := h.fs.Lstat(p[strings.LastIndexByte(p, '/')+1:])
	if err != nil {
		if notExist(err) {
			return Entry{Kind: Absent}, nil
		}
		return Entry{}, err
	}
	return entryOf(fi), nil
}

// Create starts the new content of the regular file p (its mode
// executable or not): a temp file in p's folder, which Create makes if
// missing. A new file gets 0666 or 0777 minus the umask (as git checkout
// gives it); a replaced file keeps its permission bits with the
// executable bits set or cleared. A leading symlink or file, or anything
// but a regular file at p, is a *BlockedError and nothing is created.
func (b *Batch) Create(p string, exec bool) (*Pending, error) {
	if err := ValidPath(p); err != nil {
		return nil, err
	}
	pd := &Pending{Path: p, dirPath: parent(p), base: p[strings.LastIndexByte(p, '/')+1:], exec: exec}
	if b.stage == nil {
		h, err := b.folder(p, pd.dirPath)
		if err != nil {
			return nil, err
		}
		pd.dir = h
	}
	// With a stage, folders are made (and checked again) when the file
	// is renamed into place: until then the work tree is left as it is.
	cur, err := b.Lstat(p)
	if err != nil {
		return nil, err
	}
	if cur.Blocker != "" {
		return nil, &BlockedError{Path: p, Blocker: cur.Blocker, Kind: cur.BlockerKind}
	}
	if cur.Kind != Absent && cur.Kind != File {
		return nil, &BlockedError{Path: p, Blocker: p, Kind: cur.Kind}
	}
	perm := fs.FileMode(0o666)
	if exec {
		perm = 0o777
	}
	if cur.Kind == File {
		perm = 0o600
	}
	pd.replace, pd.perm = cur.Kind == File, execPerm(cur.Perm, exec)
	if b.stage != nil {
		pd.tmp = strconv.Itoa(len(b.files))
		pd.f, err = b.createStaged(pd.dirPath, pd.tmp, perm)
	} else if pd.tmp, err = tempName(""); err == nil {
		pd.f, err = pd.dir.fs.OpenFile(pd.tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	}
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", p, err)
	}
	pd.buf = bufio.NewWriterSize(pd.f, 32<<10)
	b.files = append(b.files, pd)
	return pd, nil
}

// createStaged creates the stage file name, its inode made in the target
// folder dir when that folder exists and the platform allows it (see
// tmpfileIn), else in the stage folder. The work tree is not changed
// either way: the folder is only opened (through the batch's checked
// handles, as Commit will), never written to.
func (b *Batch) createStaged(dir, name string, perm fs.FileMode) (*os.File, error) {
	if h, _, _, err := b.open(dir, false); err == nil && h != nil {
		if f, err := h.dirFile(); err == nil {
			if f, err := tmpfileIn(f, b.stageDir, name, perm); err == nil {
				return f, nil
			}
		}
	}
	return b.stage.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
}

// dirFile is the open folder itself (for renameat and O_TMPFILE), opened
// once.
func (h *dirHandle) dirFile() (*os.File, error) {
	if h.file != nil {
		return h.file, nil
	}
	rfs, ok := h.fs.(*RootFS)
	if !ok {
		return nil, errors.New("its folder cannot be renamed into")
	}
	f, err := rfs.root.Open(".")
	if err != nil {
		return nil, err
	}
	h.file = f
	return f, nil
}

// syncWorkers is how many fsyncs a batch has in flight at once.
const syncWorkers = 16

// Done says p's content is complete: a background worker writes what is
// buffered, sets the mode of a replaced file on the open file, fsyncs and
// closes it (many at a time). Done blocks while too many files wait.
func (b *Batch) Done(p *Pending) {
	if b.queue == nil {
		b.queue = make(chan *Pending, 4*syncWorkers)
		for range syncWorkers {
			b.wg.Add(1)
			go func() {
				defer b.wg.Done()
				for p := range b.queue {
					err := p.finish()
					b.mu.Lock()
					if err == nil {
						p.synced = true
					} else if b.syncErr == nil {
						b.syncErr = err
					}
					b.mu.Unlock()
				}
			}()
		}
	}
	p.queued = true
	b.queue <- p
}

// Sync makes every temp file complete and durable: those not given to
// Done yet are given now, then Sync waits for all of them and returns the
// first error (every write error is checked).
func (b *Batch) Sync() error {
	for _, p := range b.files {
		if !p.queued {
			b.Done(p)
		}
	}
	if b.queue != nil {
		close(b.queue)
		b.wg.Wait()
		b.queue = nil
	}
	return b.syncErr
}

func (p *Pending) finish() error {
	fail := func(err error) error {
		_ = p.f.Close()
		return fmt.Errorf("writing %s: %w", p.Path, err)
	}
	err := p.buf.Flush()
	p.buf = nil // a batch may hold many finished files: not their buffers
	if err != nil {
		return fail(err)
	}
	if p.replace {
		if fc, ok := p.f.(interface{ Chmod(fs.FileMode) error }); ok {
			if err := fc.Chmod(p.perm); err != nil {
				return fail(err)
			}
		} else if ch, ok := p.dirFS().(billy.Chmod); ok {
			if err := ch.Chmod(p.tmp, p.perm); err != nil {
				return fail(err)
			}
		} else {
			return fail(errors.New("this filesystem cannot set modes"))
		}
	}
	if s, ok := p.f.(interface{ Sync() error }); ok {
		if err := s.Sync(); err != nil {
			return fail(fmt.Errorf("fsync: %w", err))
		}
	}
	if err := p.f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", p.Path, err)
	}
	return nil
}

// parallel runs f(0..n-1) on up to syncWorkers goroutines and returns the
// first error.
func parallel(n int, f func(i int) error) error {
	if n == 0 {
		return nil
	}
	var (
		mu    sync.Mutex
		first error
		next  int
		wg    sync.WaitGroup
	)
	for range min(n, syncWorkers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := i >= n || first != nil
				mu.Unlock()
				if stop {
					return
				}
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// Commit renames p's temp file (synced) over its target. The first rename
// into a folder checks again that the folder opened is still the plain
// folder at its path.
func (b *Batch) Commit(p *Pending) error {
	if !p.synced {
		return fmt.Errorf("writing %s: the new content was not synced", p.Path)
	}
	if b.stage != nil {
		h, err := b.folder(p.Path, p.dirPath)
		if err != nil {
			return err
		}
		p.dir = h
	}
	if err := b.verify(p.dir, p.Path); err != nil {
		return err
	}
	if b.stage == nil {
		if err := p.dir.fs.Rename(p.tmp, p.base); err != nil {
			return fmt.Errorf("writing %s: %w", p.Path, err)
		}
		p.committed = true
		return nil
	}
	dirf, err := p.dir.dirFile()
	if err != nil {
		return fmt.Errorf("writing %s: %w", p.Path, err)
	}
	err = renameAt(b.stageDir, p.tmp, dirf, p.base)
	if errors.Is(err, syscall.EXDEV) {
		// The folder is on another filesystem than the stage: copy
		// into a temp file next to the target instead.
		err = b.copyOver(p)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", p.Path, err)
	}
	p.committed = true
	return nil
}

// copyOver writes p's staged content with Tree.WriteFile (a temp file next
// to the target, fsync, rename).
func (b *Batch) copyOver(p *Pending) error {
	f, err := b.stage.Open(p.tmp)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := b.t.WriteFile(p.Path, f, p.exec); err != nil {
		return err
	}
	_ = b.stage.Remove(p.tmp)
	return nil
}

func (p *Pending) dirFS() billy.Filesystem {
	if p.dir == nil {
		return nil
	}
	return p.dir.fs
}

// Abort removes every temp file that was not renamed, then the folders
// Create made that are empty, deepest first.
func (b *Batch) Abort() {
	if b.queue != nil {
		close(b.queue)
		b.wg.Wait()
		b.queue = nil
	}
	for _, p := range b.files {
		if !p.committed {
			if !p.queued {
				_ = p.f.Close()
			}
			if b.stage != nil {
				_ = b.stage.Remove(p.tmp)
			} else {
				_ = p.dir.fs.Remove(p.tmp)
			}
		}
	}
	for i := len(b.created) - 1; i >= 0; i-- {
		b.t.pruneOne(b.created[i])
	}
}

// Created lists the folders the batch made for new files, outermost
// first.
func (b *Batch) Created() []string { return append([]string{}, b.created...) }

// SyncDirs fsyncs each folder of dirs ("" for the top level) once, many
// at a time, through the batch's opened folders where it has them.
func (b *Batch) SyncDirs(dirs []string) error {
	if !b.t.syncDirs {
		return nil
	}
	return parallel(len(dirs), func(i int) error {
		d := dirs[i]
		h, ok := b.dirs[d]
		if !ok {
			return b.t.SyncDir(d)
		}
		return syncFolder(h.fs, ".", d)
	})
}

// ReadFile copies the bytes of the regular file p to the writer open
// returns for its size (a symlink at p or in a leading folder is not
// followed: an error).
func (t *Tree) ReadFile(p string, open func(size int64) io.Writer) error {
	if err := ValidPath(p); err != nil {
		return err
	}
	var f io.ReadCloser
	if rfs, ok := t.fs.(*RootFS); ok {
		if of, ok := rfs.openReadFast(p); ok {
			f = of
		}
	}
	if f == nil {
		bf, err := t.fs.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
		if err != nil {
			return err
		}
		f = bf
	}
	defer f.Close()
	st, ok := f.(interface{ Stat() (fs.FileInfo, error) })
	if !ok {
		return errors.New("this filesystem cannot describe an open file")
	}
	fi, err := st.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", p)
	}
	// One reused buffer (io.Copy would let the file make a new one for
	// every call): apply and undo read every file of a patch several
	// times.
	bp := readBufs.Get().(*[]byte)
	defer readBufs.Put(bp)
	_, err = io.CopyBuffer(open(fi.Size()), struct{ io.Reader }{f}, *bp)
	return err
}

var readBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// Close releases the folders the batch opened.
func (b *Batch) Close() {
	for _, h := range b.dirs {
		h.close()
	}
	if b.stage != nil {
		_ = b.stageDir.Close()
		_ = b.stage.Close()
		b.stage, b.stageDir = nil, nil
	}
	b.dirs = map[string]*dirHandle{}
}
