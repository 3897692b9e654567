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
}

type dirHandle struct {
	fs       billy.Filesystem
	done     func()
	verified bool     // checked again right before the first rename into it
	file     *os.File // the folder itself, for renames from the stage
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

// folder returns the opened folder dir, opening it the first time.
func (b *Batch) folder(p, dir string) (*dirHandle, error) {
	if h, ok := b.dirs[dir]; ok {
		return h, nil
	}
	fsys, done, err := b.t.folder(p, dir)
	if err != nil {
		return nil, err
	}
	h := &dirHandle{fs: fsys, done: done, verified: dir == ""}
	b.dirs[dir] = h
	return h, nil
}

// mkdirs is Tree.mkdirs remembering the folders it made (for Abort) and
// the folders already looked at.
func (b *Batch) mkdirs(p string) error {
	for _, d := range leading(p) {
		if _, ok := b.dirs[d]; ok {
			continue
		}
		fi, err := b.t.fs.Lstat(d)
		switch {
		case err == nil:
			if k := kindOf(fi); k != Dir {
				return &BlockedError{Path: p, Blocker: d, Kind: k}
			}
			continue
		case !notExist(err):
			return err
		}
		if err := b.t.fs.MkdirAll(d, 0o777); err != nil {
			return fmt.Errorf("creating folder %s: %w", d, err)
		}
		b.created = append(b.created, d)
	}
	return nil
}

// Lstat is Tree.Lstat, looking through the batch's opened folder of p
// when there is one.
func (b *Batch) Lstat(p string) (Entry, error) {
	if err := ValidPath(p); err != nil {
		return Entry{}, err
	}
	dir := parent(p)
	h, ok := b.dirs[dir]
	if !ok {
		return b.t.Lstat(p)
	}
	fi, err := h.fs.Lstat(p[len(dir)+boolInt(dir != ""):])
	if err != nil {
		if notExist(err) {
			return Entry{Kind: Absent}, nil
		}
		return Entry{}, err
	}
	e := Entry{Kind: kindOf(fi), Size: fi.Size(), Perm: fi.Mode().Perm(), stamp: stampOf(fi)}
	e.Exec = e.Kind == File && fi.Mode()&0o100 != 0
	return e, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
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
	var cur Entry
	if b.stage != nil {
		// Folders are made (and opened) when the file is renamed into
		// place: until then the work tree is left as it is.
		var err error
		if cur, err = b.Lstat(p); err != nil {
			return nil, err
		}
		if cur.Blocker != "" {
			return nil, &BlockedError{Path: p, Blocker: cur.Blocker, Kind: cur.BlockerKind}
		}
	} else {
		if err := b.mkdirs(p); err != nil {
			return nil, err
		}
		h, err := b.folder(p, pd.dirPath)
		if err != nil {
			return nil, err
		}
		pd.dir = h
		if cur, err = b.Lstat(p); err != nil {
			return nil, err
		}
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
	var err error
	if b.stage != nil {
		pd.tmp = strconv.Itoa(len(b.files))
		pd.f, err = b.stage.OpenFile(pd.tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
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

// syncWorkers is how many fsyncs a batch has in flight at once.
const syncWorkers = 16

// Sync makes every temp file complete and durable: buffered content
// written, every write error checked, the mode of replaced files set on
// the open file, fsync (many at a time), close.
func (b *Batch) Sync() error {
	var todo []*Pending
	for _, p := range b.files {
		if !p.synced {
			todo = append(todo, p)
		}
	}
	return parallel(len(todo), func(i int) error {
		p := todo[i]
		err := p.finish()
		if err == nil {
			p.synced = true
		}
		return err
	})
}

func (p *Pending) finish() error {
	fail := func(err error) error {
		_ = p.f.Close()
		return fmt.Errorf("writing %s: %w", p.Path, err)
	}
	if err := p.buf.Flush(); err != nil {
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
	if p.dir == nil {
		if err := b.mkdirs(p.Path); err != nil {
			return err
		}
		h, err := b.folder(p.Path, p.dirPath)
		if err != nil {
			return err
		}
		p.dir = h
	}
	if !p.dir.verified {
		in, err := p.dir.fs.Lstat(".")
		if err != nil {
			return err
		}
		at, err := b.t.Lstat(p.dirPath)
		if err != nil {
			return err
		}
		if at.Blocker != "" {
			return &BlockedError{Path: p.Path, Blocker: at.Blocker, Kind: at.BlockerKind}
		}
		fi, err := b.t.fs.Lstat(p.dirPath)
		if err != nil || at.Kind != Dir || !sameFile(in, fi) {
			return &BlockedError{Path: p.Path, Blocker: p.dirPath, Kind: at.Kind}
		}
		p.dir.verified = true
	}
	if b.stage == nil {
		if err := p.dir.fs.Rename(p.tmp, p.base); err != nil {
			return fmt.Errorf("writing %s: %w", p.Path, err)
		}
		p.committed = true
		return nil
	}
	if p.dir.file == nil {
		rfs, ok := p.dir.fs.(*RootFS)
		if !ok {
			return fmt.Errorf("writing %s: its folder cannot be renamed into", p.Path)
		}
		f, err := rfs.root.Open(".")
		if err != nil {
			return fmt.Errorf("writing %s: %w", p.Path, err)
		}
		p.dir.file = f
	}
	err := renameAt(b.stageDir, p.tmp, p.dir.file, p.base)
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
	for _, p := range b.files {
		if !p.committed {
			if !p.synced {
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
		f, err := h.fs.Open(".")
		if err != nil {
			if notExist(err) {
				return nil
			}
			return err
		}
		defer f.Close()
		if s, ok := f.(interface{ Sync() error }); ok {
			if err := s.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
				return fmt.Errorf("fsync of folder %q: %w", d, err)
			}
		}
		return nil
	})
}

// ReadFile copies the bytes of the regular file p to the writer open
// returns for its size (a symlink at p or in a leading folder is not
// followed: an error).
func (t *Tree) ReadFile(p string, open func(size int64) io.Writer) error {
	if err := ValidPath(p); err != nil {
		return err
	}
	f, err := t.fs.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return err
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
	_, err = io.Copy(open(fi.Size()), f)
	return err
}

// Close releases the folders the batch opened.
func (b *Batch) Close() {
	for _, h := range b.dirs {
		if h.file != nil {
			_ = h.file.Close()
		}
		h.done()
	}
	if b.stage != nil {
		_ = b.stageDir.Close()
		_ = b.stage.Close()
		b.stage, b.stageDir = nil, nil
	}
	b.dirs = map[string]*dirHandle{}
}
