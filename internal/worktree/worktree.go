// Package worktree owns direct access to work-tree files during apply,
// undo and restore. Every read, write, rename, removal and mkdir goes
// through a go-billy filesystem bound to the work tree's top level: on
// disk a RootFS, whose system calls are made through Go's os.Root
// (openat-based), so that no path and no symlink swapped in while a call
// runs can reach outside the top level; memfs in unit tests. Paths are
// validated before use (ValidPath), and no operation steps through a
// symlink or a file where a folder should be: a leading folder replaced by
// a symlink is reported, never followed out of the tree. Writes are
// atomic: a temp file in the target's own folder (opened once, so the temp
// file and the rename stay in that one folder), every write error checked,
// fsync, mode set on the open file, rename over the target. Removals prune
// the folders they leave empty, never the top level and never a folder
// that still holds anything.
package worktree

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/nudgethis/git-nudge/internal/pathenc"
	"syscall"

	"github.com/go-git/go-billy/v5"
)

// Kind is what occupies a path.
type Kind uint8

// Kinds of things at a path.
const (
	Absent  Kind = iota // nothing (or a leading folder is not a folder, see Entry.Blocker)
	File                // a regular file
	Symlink             // a symbolic link (never followed)
	Dir                 // a folder
	Other               // a device, socket or fifo
)

func (k Kind) String() string {
	switch k {
	case Absent:
		return "absent"
	case File:
		return "file"
	case Symlink:
		return "symlink"
	case Dir:
		return "folder"
	default:
		return "special file"
	}
}

// Entry is the lstat-like state of one path.
type Entry struct {
	Kind Kind
	// Exec is the owner-executable bit of a File (the bit git records).
	Exec bool
	Size int64
	Perm fs.FileMode
	// Blocker is set when a leading folder of the path is not a plain folder
	// (a symlink, a file...): that leading path. Kind is then Absent: git
	// does not see files beyond a symlink either.
	Blocker     string
	BlockerKind Kind

	stamp stamp
}

// Unchanged reports whether e and o describe the same, untouched file: same
// kind, size, permissions, modification time and inode. It is the cheap
// check made right before a path is replaced.
func (e Entry) Unchanged(o Entry) bool {
	return e.Kind == o.Kind && e.Blocker == o.Blocker && e.stamp == o.stamp
}

// BlockedError is returned when a leading folder of a path is not a plain
// folder, or a folder stands where a file must go.
type BlockedError struct {
	Path    string
	Blocker string
	Kind    Kind
}

func (e *BlockedError) Error() string {
	if e.Blocker == e.Path {
		return fmt.Sprintf("cannot replace %s: it is a %s", pathenc.Quote(e.Path), e.Kind)
	}
	return fmt.Sprintf("cannot reach %s: %s is a %s, not a folder", pathenc.Quote(e.Path), pathenc.Quote(e.Blocker), e.Kind)
}

// Tree is a work tree's files, reachable only below its top level.
type Tree struct {
	fs       billy.Filesystem
	syncDirs bool
}

// Open returns the work tree rooted at root on the real filesystem (a
// RootFS: no path can resolve outside root, even racing). Close releases
// it.
func Open(root string) (*Tree, error) {
	fsys, err := OpenRootFS(root)
	if err != nil {
		return nil, fmt.Errorf("opening the work tree %s: %w", root, err)
	}
	return &Tree{fs: fsys, syncDirs: true}, nil
}

// Close releases what Open holds (the top level's descriptor).
func (t *Tree) Close() error {
	if c, ok := t.fs.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// folder returns folder dir ("" for the top level) as a filesystem of its
// own, opened once so that the calls made in it cannot be redirected to
// another folder halfway, after checking that it is the plain folder
// found at dir now (not a symlink, not something swapped in). done
// releases it.
func (t *Tree) folder(p, dir string) (fsys billy.Filesystem, done func(), err error) {
	if dir == "" {
		return t.fs, func() {}, nil
	}
	sub, err := t.fs.Chroot(dir)
	if err != nil {
		// Swapped for a symlink (to the outside, which the RootFS
		// refuses) or a file since it was looked at: say so plainly.
		if at, lerr := t.fs.Lstat(dir); lerr == nil && kindOf(at) != Dir {
			return nil, nil, &BlockedError{Path: p, Blocker: dir, Kind: kindOf(at)}
		}
		return nil, nil, fmt.Errorf("opening folder %s: %w", dir, err)
	}
	done = func() {
		if c, ok := sub.(io.Closer); ok {
			_ = c.Close()
		}
	}
	in, err := sub.Lstat(".")
	if err != nil {
		done()
		return nil, nil, err
	}
	at, err := t.fs.Lstat(dir)
	if err != nil {
		done()
		return nil, nil, err
	}
	if k := kindOf(at); k != Dir || !sameFile(in, at) {
		done()
		return nil, nil, &BlockedError{Path: p, Blocker: dir, Kind: k}
	}
	return sub, done, nil
}

func notExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// KindOf says what kind of thing fi describes (from an Lstat).
func KindOf(fi fs.FileInfo) Kind { return kindOf(fi) }

func kindOf(fi fs.FileInfo) Kind {
	m := fi.Mode()
	switch {
	case m.IsRegular():
		return File
	case m&fs.ModeSymlink != 0:
		return Symlink
	case m.IsDir():
		return Dir
	default:
		return Other
	}
}

// Lstat describes what is at p without following a symlink at p or in any
// of its leading folders.
func (t *Tree) Lstat(p string) (Entry, error) {
	if err := ValidPath(p); err != nil {
		return Entry{}, err
	}
	if rfs, ok := t.fs.(*RootFS); ok {
		if fi, ok := rfs.lstatFast(p); ok {
			if fi == nil {
				return Entry{Kind: Absent}, nil
			}
			return entryOf(fi), nil
		}
	}
	for _, d := range leading(p) {
		fi, err := t.fs.Lstat(d)
		if err != nil {
			if notExist(err) {
				return Entry{Kind: Absent}, nil
			}
			return Entry{}, err
		}
		if k := kindOf(fi); k != Dir {
			return Entry{Kind: Absent, Blocker: d, BlockerKind: k}, nil
		}
	}
	fi, err := t.fs.Lstat(p)
	if err != nil {
		if notExist(err) {
			return Entry{Kind: Absent}, nil
		}
		return Entry{}, err
	}
	return entryOf(fi), nil
}

// entryOf is the Entry for what fi describes.
func entryOf(fi fs.FileInfo) Entry {
	e := Entry{Kind: kindOf(fi), Size: fi.Size(), Perm: fi.Mode().Perm(), stamp: stampOf(fi)}
	e.Exec = e.Kind == File && fi.Mode()&0o100 != 0
	return e
}

// mkdirs creates the leading folders of p that are missing, refusing to go
// through anything that is not a plain folder.
func (t *Tree) mkdirs(p string) error {
	for _, d := range leading(p) {
		fi, err := t.fs.Lstat(d)
		switch {
		case err == nil:
			if k := kindOf(fi); k != Dir {
				return &BlockedError{Path: p, Blocker: d, Kind: k}
			}
			continue
		case !notExist(err):
			return err
		}
		if err := t.fs.MkdirAll(d, 0o777); err != nil {
			return fmt.Errorf("creating folder %s: %w", d, err)
		}
	}
	return nil
}

// TempPrefix and TempSuffix frame the names of the temp files WriteFile
// creates next to their targets; a crash can leave one behind.
const (
	TempPrefix = ".nudge-"
	TempSuffix = ".tmp"
)

// IsTempName reports whether a file name (no folder) is one of WriteFile's
// temp files.
func IsTempName(name string) bool {
	mid, ok := strings.CutPrefix(name, TempPrefix)
	if !ok {
		return false
	}
	mid, ok = strings.CutSuffix(mid, TempSuffix)
	if !ok || len(mid) != 16 {
		return false
	}
	_, err := hex.DecodeString(mid)
	return err == nil
}

func tempName(dir string) (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	name := TempPrefix + hex.EncodeToString(b[:]) + TempSuffix
	if dir == "" {
		return name, nil
	}
	return dir + "/" + name, nil
}

// execPerm turns permission bits into their executable (or not) variant
// the way git does: each read bit grants the matching execute bit.
func execPerm(perm fs.FileMode, exec bool) fs.FileMode {
	if exec {
		return perm | (perm&0o444)>>2
	}
	return perm &^ 0o111
}

// WriteFile replaces (or creates) the regular file p with the content of r,
// atomically: the content goes to a temp file in p's folder, every write
// error is checked, the file is fsynced, its mode set, then renamed over p.
// A new file gets 0666 or 0777 minus the umask (as git checkout gives it);
// a replaced file keeps its permission bits with the executable bits set
// or cleared. Missing leading folders are created; a leading symlink or
// file, or anything but a regular file at p, is a *BlockedError and nothing
// is written.
func (t *Tree) WriteFile(p string, r io.Reader, exec bool) (err error) {
	if err := ValidPath(p); err != nil {
		return err
	}
	if err := t.mkdirs(p); err != nil {
		return err
	}
	cur, err := t.Lstat(p)
	if err != nil {
		return err
	}
	switch {
	case cur.Blocker != "":
		return &BlockedError{Path: p, Blocker: cur.Blocker, Kind: cur.BlockerKind}
	case cur.Kind != Absent && cur.Kind != File:
		// apply and undo write regular files only: a symlink, folder or
		// special file in the way is the caller's to judge.
		return &BlockedError{Path: p, Blocker: p, Kind: cur.Kind}
	}
	dir, base := parent(p), p[strings.LastIndexByte(p, '/')+1:]
	dfs, release, err := t.folder(p, dir)
	if err != nil {
		return err
	}
	defer release()
	tmp, err := tempName("")
	if err != nil {
		return err
	}
	// A new file is created with git's modes minus the umask. A replaced
	// file's temp copy starts private and gets the old file's bits below.
	perm := fs.FileMode(0o666)
	if exec {
		perm = 0o777
	}
	if cur.Kind == File {
		perm = 0o600
	}
	f, err := dfs.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	done := false
	defer func() {
		if !done {
			_ = dfs.Remove(tmp)
		}
	}()
	if _, err := io.Copy(f, r); err != nil {
		_ = f.Close()
		return fmt.Errorf("writing %s: %w", p, err)
	}
	if s, ok := f.(interface{ Sync() error }); ok {
		if err := s.Sync(); err != nil {
			_ = f.Close()
			return fmt.Errorf("writing %s: fsync: %w", p, err)
		}
	}
	if cur.Kind == File {
		// On the open file when it can (fchmod: no name to redirect),
		// else by name on filesystems that only offer that (memfs).
		if fc, ok := f.(interface{ Chmod(fs.FileMode) error }); ok {
			err = fc.Chmod(execPerm(cur.Perm, exec))
		} else if ch, ok := dfs.(billy.Chmod); ok {
			err = ch.Chmod(tmp, execPerm(cur.Perm, exec))
		} else {
			err = errors.New("this filesystem cannot set modes")
		}
		if err != nil {
			_ = f.Close()
			return fmt.Errorf("writing %s: %w", p, err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	if err := dfs.Rename(tmp, base); err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	done = true
	return nil
}

// Remove deletes the regular file at p, then prunes the leading
// folders that this left empty, deepest first, stopping at the first folder
// that still holds anything and never removing the top level. It returns
// the folders it removed. A missing p is not an error.
func (t *Tree) Remove(p string) (pruned []string, err error) {
	if err := t.RemoveFile(p); err != nil {
		return nil, err
	}
	return t.Prune(parent(p)), nil
}

// RemoveFile is Remove without the pruning: many removals followed by one
// PruneAll of their folders read each folder once, where Remove after
// Remove would list a folder of n files n times.
func (t *Tree) RemoveFile(p string) error {
	cur, err := t.Lstat(p)
	if err != nil {
		return err
	}
	switch {
	case cur.Blocker != "":
		return &BlockedError{Path: p, Blocker: cur.Blocker, Kind: cur.BlockerKind}
	case cur.Kind == Absent:
		return nil
	case cur.Kind != File:
		// Folders are pruned, not removed; symlinks and special files are
		// left to the caller (apply and undo never remove them).
		return &BlockedError{Path: p, Blocker: p, Kind: cur.Kind}
	}
	dfs, release, err := t.folder(p, parent(p))
	if err != nil {
		return err
	}
	err = dfs.Remove(p[strings.LastIndexByte(p, '/')+1:])
	release()
	if err != nil && !notExist(err) {
		return fmt.Errorf("removing %s: %w", p, err)
	}
	return nil
}

// RemoveAny removes the file, symlink or special file at p (a symlink
// itself: unlinkat never follows a final link), when every folder above it
// is a plain folder inside the tree. It reports whether something was
// removed. A folder at p, nothing at p, a leading folder that is gone or is
// a symlink or file (the file once at p is then not at this path any more),
// or a path ValidPath refuses, is left alone and reported as not removed.
// restore removes the untracked files it parked this way, then PruneAll
// prunes their folders.
func (t *Tree) RemoveAny(p string) (bool, error) {
	if ValidPath(p) != nil {
		return false, nil
	}
	cur, err := t.Lstat(p)
	if err != nil {
		return false, err
	}
	if cur.Blocker != "" || cur.Kind == Absent || cur.Kind == Dir {
		return false, nil
	}
	dfs, release, err := t.folder(p, parent(p))
	if err != nil {
		var b *BlockedError
		if errors.As(err, &b) {
			return false, nil // swapped since the Lstat: as if blocked then
		}
		return false, err
	}
	err = dfs.Remove(p[strings.LastIndexByte(p, '/')+1:])
	release()
	if err != nil {
		if notExist(err) {
			return false, nil
		}
		return false, fmt.Errorf("removing %s: %w", p, err)
	}
	return true, nil
}

// PruneAll prunes the folders of the given paths' (files removed with
// RemoveFile): every folder on them is looked at once, deepest first, and
// removed when it is an empty plain folder. It returns the folders removed.
func (t *Tree) PruneAll(paths []string) []string {
	dirs := map[string]bool{}
	for _, p := range paths {
		for d := parent(p); d != "" && !dirs[d]; d = parent(d) {
			dirs[d] = true
		}
	}
	list := make([]string, 0, len(dirs))
	for d := range dirs {
		list = append(list, d)
	}
	sort.Slice(list, func(i, j int) bool {
		if a, b := strings.Count(list[i], "/"), strings.Count(list[j], "/"); a != b {
			return a > b
		}
		return list[i] < list[j]
	})
	var pruned []string
	for _, d := range list {
		if t.pruneOne(d) {
			pruned = append(pruned, d)
		}
	}
	return pruned
}

// Prune removes dir and then its leading folders while they are empty
// plain folders. It stops silently at the first that is not (or that cannot
// be removed) and never touches the top level.
func (t *Tree) Prune(dir string) []string {
	var pruned []string
	for d := dir; d != ""; d = parent(d) {
		if !t.pruneOne(d) {
			break
		}
		pruned = append(pruned, d)
	}
	return pruned
}

// pruneOne removes folder d when it is an empty plain folder.
func (t *Tree) pruneOne(d string) bool {
	if ValidPath(d) != nil {
		return false
	}
	fi, err := t.fs.Lstat(d)
	if err != nil || kindOf(fi) != Dir {
		return false
	}
	if empty, err := t.isEmpty(d); err != nil || !empty {
		return false
	}
	return t.fs.Remove(d) == nil
}

// isEmpty says whether folder d holds nothing. On the real filesystem it
// reads one name, not the whole listing with an lstat per entry.
func (t *Tree) isEmpty(d string) (bool, error) {
	if e, ok := t.fs.(interface{ IsEmptyDir(string) (bool, error) }); ok {
		return e.IsEmptyDir(d)
	}
	ents, err := t.fs.ReadDir(d)
	return err == nil && len(ents) == 0, err
}

// SyncDir fsyncs folder dir ("" for the top level) so that renames and
// removals in it survive a power cut. A no-op on in-memory filesystems.
func (t *Tree) SyncDir(dir string) error {
	if !t.syncDirs {
		return nil
	}
	if dir != "" {
		if e, err := t.Lstat(dir); err != nil || e.Kind != Dir {
			return err // gone (pruned) or not a folder: nothing to sync
		}
	}
	return syncFolder(t.fs, dir, dir)
}

// syncFolder fsyncs the folder at p in fs (name is how errors call it): a
// folder already gone is nothing to sync, and a file system that cannot
// fsync a folder (EINVAL) is let be. SyncDir and Batch.SyncDirs share it.
func syncFolder(fs billy.Filesystem, p, name string) error {
	f, err := fs.Open(p)
	if err != nil {
		if notExist(err) {
			return nil
		}
		return err
	}
	defer f.Close()
	if s, ok := f.(interface{ Sync() error }); ok {
		if err := s.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
			return fmt.Errorf("fsync of folder %q: %w", name, err)
		}
	}
	return nil
}

// Leftovers lists WriteFile temp files left in folder dir ("" for the top
// level) by an interrupted write, as paths.
func (t *Tree) Leftovers(dir string) ([]string, error) {
	if dir != "" {
		e, err := t.Lstat(dir)
		if err != nil || e.Kind != Dir {
			return nil, err
		}
	}
	ents, err := t.fs.ReadDir(dir)
	if err != nil {
		if notExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.Mode().IsRegular() && IsTempName(e.Name()) {
			if dir == "" {
				out = append(out, e.Name())
			} else {
				out = append(out, dir+"/"+e.Name())
			}
		}
	}
	return out, nil
}

// ListFiles lists every non-folder entry (files, symlinks, special files)
// below folder dir, recursively, without following symlinks, as paths. It
// stops after limit entries, or at an empty folder (which removing files
// would not prune), and then reports complete == false.
func (t *Tree) ListFiles(dir string, limit int) (paths []string, complete bool, err error) {
	e, err := t.Lstat(dir)
	if err != nil || e.Kind != Dir {
		return nil, err == nil, err
	}
	var walk func(d string) bool
	walk = func(d string) bool {
		ents, rerr := t.fs.ReadDir(d)
		if rerr != nil {
			err = rerr
			return false
		}
		if len(ents) == 0 {
			// An empty folder: removing files will not prune it, so the
			// listing cannot say the folder will be gone.
			return false
		}
		for _, fi := range ents {
			p := d + "/" + fi.Name()
			if kindOf(fi) == Dir {
				if !walk(p) {
					return false
				}
				continue
			}
			if len(paths) >= limit {
				return false
			}
			paths = append(paths, p)
		}
		return true
	}
	complete = walk(dir)
	return paths, complete && err == nil, err
}
