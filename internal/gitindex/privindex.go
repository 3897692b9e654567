package gitindex

// This file holds private indexes: the one naming and cleanup rule for
// an index of our own in the git dir, what a killed process leaves
// behind, and hashing work-tree files through one.

import (
	"errors"
	"fmt"
	"github.com/nudgethis/git-nudge/internal/gitstore"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// LeftoverIndex is a file of a private index in the git dir, or the user's
// index.lock linked to one.
type LeftoverIndex struct {
	Path string // absolute
	// PID is the process that made it, from its name (0 for a name from
	// a version that did not record it).
	PID int
	// Lock is true for <private index>.lock, which git was writing when
	// the process died.
	Lock bool
	// UserLock is true for the user's index.lock, taken by InstallIndex as
	// a link to the private index of PID.
	UserLock bool
}

// LeftoverIndexes lists the private index files named by CopyIndex(name)
// that are in the git dir, and the user's index.lock when it is a link to
// one of them. The caller decides, from PID, which were left by processes
// that have ended.
func (r *Files) LeftoverIndexes(name string) ([]LeftoverIndex, error) {
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(name) + `-(?:([0-9]+)-)?[0-9]+\.index(\.lock)?$`)
	ents, err := os.ReadDir(r.GitDir)
	if err != nil {
		return nil, err
	}
	userLock, lockErr := os.Lstat(r.IndexPath() + ".lock")
	var out []LeftoverIndex
	for _, e := range ents {
		m := re.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		l := LeftoverIndex{Path: filepath.Join(r.GitDir, e.Name()), Lock: m[2] != ""}
		l.PID, _ = strconv.Atoi(m[1])
		out = append(out, l)
		if lockErr == nil && !l.Lock {
			if st, err := os.Lstat(l.Path); err == nil && os.SameFile(st, userLock) {
				out = append(out, LeftoverIndex{Path: r.IndexPath() + ".lock", PID: l.PID, UserLock: true})
			}
		}
	}
	return out, nil
}

// RemoveLeftover removes a file LeftoverIndexes listed. The user's
// index.lock is removed only while it is still the same file as a private
// index of l.PID's.
func (r *Files) RemoveLeftover(name string, l LeftoverIndex) error {
	if l.UserLock {
		now, err := r.LeftoverIndexes(name)
		if err != nil {
			return err
		}
		still := false
		for _, n := range now {
			still = still || (n.UserLock && n.PID == l.PID)
		}
		if !still {
			return nil
		}
	}
	if err := os.Remove(l.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// PrivateIndex returns an empty private index in the git dir named
// <name>-<pid>-<n>.index and the function that removes it (and any
// <file>.lock left beside it) when done.
func (r *Files) PrivateIndex(name string) (gitstore.Index, func(), error) {
	return r.EmptyPrivateIndex(name)
}

// privateIndexSeq numbers the private indexes of this process.
var privateIndexSeq atomic.Uint64

// newPrivateIndex is the one way this package names a private index: a file
// <name>-<pid>-<n>.index in this worktree's git dir, created empty and
// exclusively, so no two callers share one and a leftover of a killed
// process whose pid came round again is never reused. The pid says whose
// it is if a kill leaves it behind: LeftoverIndexes(name) lists such files.
// The returned remove is the one cleanup rule for every private index: the
// file goes, and so does the <file>.lock git may have left beside it.
func (r *Files) newPrivateIndex(name string) (*os.File, gitstore.Index, func(), error) {
	for {
		path := filepath.Join(r.GitDir, fmt.Sprintf("%s-%d-%d.index", name, os.Getpid(), privateIndexSeq.Add(1)))
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, gitstore.Index{}, nil, err
		}
		return f, gitstore.Index{Path: path}, func() {
			os.Remove(path)
			os.Remove(path + ".lock")
		}, nil
	}
}

// EmptyPrivateIndex is newPrivateIndex for an index that starts empty: the
// file is left absent, which is how git spells an empty index (git refuses
// an empty file), and is created by the first git command that writes it.
func (r *Files) EmptyPrivateIndex(name string) (gitstore.Index, func(), error) {
	f, ix, remove, err := r.newPrivateIndex(name)
	if err != nil {
		return gitstore.Index{}, nil, err
	}
	f.Close()
	remove()
	return ix, remove, nil
}

// HashHere is HashWorkTreePaths in this process, where git would convert
// nothing: no attributes (no .gitattributes in any folder of the paths,
// no info/attributes, no global attributes file), core.autocrlf off,
// core.fileMode and core.symlinks on, no sparse checkout, objects written
// here (fastOK). Every path is then stored as its bytes: a file with git's
// mode (executable when its owner may run it), a symbolic link as its
// target. A path beyond a symbolic link, or whose folder is gone, holds
// nothing (as git sees it); files are opened under the work tree's root,
// never following a link. ok is false, and git hashes all of them, for
// anything else (a folder or submodule, a special file, a file over 32
// MiB, a .gitattributes among the paths).
func (r *Files) HashHere(paths []string) ([]gitstore.IndexEntry, bool) {
	if !r.InProcess() || !r.PlainCheckin() {
		return nil, false
	}
	root, err := os.OpenRoot(r.WorkTree)
	if err != nil {
		return nil, false
	}
	defer root.Close()
	// folders: whether a folder is a real one without a .gitattributes
	// (0 not known yet, 1 yes, 2 not a folder: what is under it is gone).
	folders := map[string]int{}
	var folderState func(dir string) (int, bool)
	folderState = func(dir string) (int, bool) {
		if st := folders[dir]; st != 0 {
			return st, true
		}
		st := 1
		if dir != "." {
			up, ok := folderState(path.Dir(dir))
			if !ok {
				return 0, false
			}
			if up == 2 {
				st = 2
			} else if fi, err := root.Lstat(dir); err != nil || !fi.IsDir() {
				if err != nil && !errors.Is(err, fs.ErrNotExist) {
					return 0, false
				}
				st = 2
			}
		}
		if st == 1 {
			if _, err := root.Lstat(path.Join(dir, ".gitattributes")); !errors.Is(err, fs.ErrNotExist) {
				return 0, false
			}
		}
		folders[dir] = st
		return st, true
	}
	out := make([]gitstore.IndexEntry, 0, len(paths))
	for _, p := range paths {
		if p == "" || strings.HasSuffix(p, "/") || path.Clean(p) != p || !fs.ValidPath(p) || path.Base(p) == ".gitattributes" {
			return nil, false
		}
		st, ok := folderState(path.Dir(p))
		if !ok {
			return nil, false
		}
		if st == 2 {
			continue // beyond a link, or its folder is gone
		}
		fi, err := root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, false
		}
		var data []byte
		mode := "100644"
		switch {
		case fi.Mode().IsRegular():
			if fi.Size() > maxHashHere {
				return nil, false
			}
			// Non-blocking and checked again once open: a file swapped
			// for a FIFO or a folder meanwhile is git's to look at.
			f, err := root.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
			if err != nil {
				return nil, false
			}
			ofi, err := f.Stat()
			if err == nil && ofi.Mode().IsRegular() && ofi.Size() <= maxHashHere {
				data, err = io.ReadAll(io.LimitReader(f, maxHashHere+1))
			} else if err == nil {
				err = errNotPlain
			}
			f.Close()
			if err != nil || len(data) > maxHashHere {
				return nil, false
			}
			if ofi.Mode()&0o100 != 0 {
				mode = "100755"
			}
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := root.Readlink(p)
			if err != nil {
				return nil, false
			}
			data, mode = []byte(target), gitstore.ModeSymlink
		default:
			return nil, false
		}
		id, err := r.WriteObject("blob", data)
		if err != nil {
			return nil, false
		}
		out = append(out, gitstore.IndexEntry{Mode: mode, Blob: id, Path: p})
	}
	// In the index's order, as git's answer comes.
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, true
}

// maxHashHere is the largest file HashHere reads itself.
const maxHashHere = 32 << 20

// errNotPlain says a work-tree file is not one HashHere reads (not a
// regular file, or too big): git hashes it.
var errNotPlain = errors.New("not a plain file to hash here")
