package worktree

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5"
)

// RootFS is a billy.Filesystem whose every system call goes through an
// os.Root: each path is resolved one component at a time relative to an
// open descriptor of the top level (openat and friends), so no path, and
// no symlink created or swapped in while a call runs, can make it read,
// write, rename, remove or create anything outside the top level. Symlinks
// are followed only while they stay inside; a final symlink is never
// followed by Lstat, Remove or Rename (they act on the link itself).
//
// Paths are slash-separated and relative to the top level; "", "." and
// "/" name the top level itself. Close releases the descriptor.
type RootFS struct {
	root *os.Root
	dir  string // the top level's path as opened, for Root()
	// top is the top level as an open folder (topFile), for lstatFast.
	topOnce sync.Once
	top     *os.File
	topErr  error
}

// OpenRootFS opens the folder dir as a RootFS.
func OpenRootFS(dir string) (*RootFS, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &RootFS{root: r, dir: dir}, nil
}

// Close releases the top level's descriptor.
func (r *RootFS) Close() error {
	if r.top != nil {
		_ = r.top.Close()
	}
	return r.root.Close()
}

var (
	_ billy.Filesystem = (*RootFS)(nil)
	_ billy.Chmod      = (*RootFS)(nil)
	_ billy.Capable    = (*RootFS)(nil)
)

// name turns a billy path into an os.Root name.
func name(p string) string {
	p = strings.TrimLeft(filepath.ToSlash(p), "/")
	if p == "" {
		return "."
	}
	return filepath.FromSlash(p)
}

// Capabilities are billy's defaults less locking, which RootFS lacks.
func (r *RootFS) Capabilities() billy.Capability {
	return billy.DefaultCapabilities &^ billy.LockCapability
}

// Create creates or truncates p (0666 before the umask).
func (r *RootFS) Create(p string) (billy.File, error) {
	return r.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

// Open opens p for reading.
func (r *RootFS) Open(p string) (billy.File, error) { return r.OpenFile(p, os.O_RDONLY, 0) }

// OpenFile is os.OpenFile below the top level. With O_CREATE, missing
// leading folders are created first, as billy's osfs does.
func (r *RootFS) OpenFile(p string, flag int, perm fs.FileMode) (billy.File, error) {
	if flag&os.O_CREATE != 0 {
		if d := path.Dir(strings.TrimLeft(filepath.ToSlash(p), "/")); d != "." {
			if err := r.root.MkdirAll(name(d), 0o777); err != nil {
				return nil, err
			}
		}
	}
	f, err := r.root.OpenFile(name(p), flag, perm)
	if err != nil {
		return nil, err
	}
	return &rootFile{File: f, name: p}, nil
}

// Stat describes p, following a final symlink that stays inside.
func (r *RootFS) Stat(p string) (fs.FileInfo, error) { return r.root.Stat(name(p)) }

// Lstat describes p itself.
func (r *RootFS) Lstat(p string) (fs.FileInfo, error) { return r.root.Lstat(name(p)) }

// Rename renames from to to (renameat: a final symlink is moved or
// replaced, never followed).
func (r *RootFS) Rename(from, to string) error {
	if d := path.Dir(strings.TrimLeft(filepath.ToSlash(to), "/")); d != "." {
		if err := r.root.MkdirAll(name(d), 0o777); err != nil {
			return err
		}
	}
	return r.root.Rename(name(from), name(to))
}

// Remove removes the file, symlink (the link itself) or empty folder p.
func (r *RootFS) Remove(p string) error { return r.root.Remove(name(p)) }

// Join joins path elements with slashes.
func (r *RootFS) Join(elem ...string) string { return path.Join(elem...) }

// TempFile creates a new file in folder dir whose name starts with prefix.
func (r *RootFS) TempFile(dir, prefix string) (billy.File, error) {
	for range 100 {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		f, err := r.OpenFile(path.Join(dir, prefix+hex.EncodeToString(b[:])), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, errors.New("could not find a free temp file name in " + dir)
}

// ReadDir lists folder p, sorted by name, without following symlinks.
func (r *RootFS) ReadDir(p string) ([]fs.FileInfo, error) {
	f, err := r.root.Open(name(p))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.Readdir(-1)
	if err != nil {
		return nil, err
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents, nil
}

// IsEmptyDir says whether folder p holds nothing, reading one name.
func (r *RootFS) IsEmptyDir(p string) (bool, error) {
	f, err := r.root.Open(name(p))
	if err != nil {
		return false, err
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	if errors.Is(err, io.EOF) {
		return true, nil
	}
	return len(names) == 0, err
}

// MkdirAll creates folder p and any missing leading folder.
func (r *RootFS) MkdirAll(p string, perm fs.FileMode) error { return r.root.MkdirAll(name(p), perm) }

// Symlink creates link pointing to target (a relative target that stays
// inside; os.Root refuses to follow anything else).
func (r *RootFS) Symlink(target, link string) error { return r.root.Symlink(target, name(link)) }

// Readlink returns the target of the symlink link.
func (r *RootFS) Readlink(link string) (string, error) { return r.root.Readlink(name(link)) }

// Chroot returns the folder p as a RootFS of its own (its own descriptor:
// the caller closes it when it implements io.Closer).
func (r *RootFS) Chroot(p string) (billy.Filesystem, error) {
	sub, err := r.root.OpenRoot(name(p))
	if err != nil {
		return nil, err
	}
	return &RootFS{root: sub, dir: filepath.Join(r.dir, filepath.FromSlash(p))}, nil
}

// Root is the path of the top level as it was opened.
func (r *RootFS) Root() string { return r.dir }

// Chmod sets p's permission bits (following a final symlink that stays
// inside; prefer the open file's own Chmod where there is one).
func (r *RootFS) Chmod(p string, mode fs.FileMode) error { return r.root.Chmod(name(p), mode) }

// rootFile is an *os.File opened through a RootFS, named by its billy path.
type rootFile struct {
	*os.File
	name string
}

func (f *rootFile) Name() string { return f.name }

// Lock and Unlock are not offered (see Capabilities).
func (f *rootFile) Lock() error   { return billy.ErrNotSupported }
func (f *rootFile) Unlock() error { return billy.ErrNotSupported }
