package git

// This file holds private indexes: the one naming and cleanup rule for
// an index of our own in the git dir, what a killed process leaves
// behind, and hashing work-tree files through one.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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

// privateIndex makes a temporary index file holding entries and returns its
// path and a cleanup function. The user's index is never read or written.
func (r *Repo) privateIndex(ctx context.Context, entries []IndexEntry) (Index, func(), error) {
	ix, cleanup, err := r.emptyPrivateIndex("nudge-apply")
	if err != nil {
		return Index{}, nil, err
	}
	for _, e := range entries {
		if !r.validID(e.Blob) {
			cleanup()
			return Index{}, nil, fmt.Errorf("malformed blob id %q for %s", e.Blob, e.Path)
		}
	}
	if err := r.UpdateIndexEntries(ctx, ix, entries); err != nil {
		cleanup()
		return Index{}, nil, err
	}
	return ix, cleanup, nil
}

// HashIndexed is HashFiles with git add's full rules: each path is hashed
// as if the index held entries[i] for it, so that git's "the index already
// has CRLF here, keep it" rule of core.autocrlf applies. It uses a private
// index (update-index --info-only, then ls-files): three git processes,
// no object written, the user's index untouched.
func (r *Repo) HashIndexed(ctx context.Context, entries []IndexEntry) ([]string, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	ix, cleanup, err := r.privateIndex(ctx, entries)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	var in bytes.Buffer
	for _, e := range entries {
		in.WriteString(e.Path)
		in.WriteByte(0)
	}
	if _, err := r.run(ctx, cmd{args: []string{"update-index", "--info-only", "-z", "--stdin"}, env: ix.env(), stdin: &in}); err != nil {
		return nil, err
	}
	out, err := r.run(ctx, cmd{args: []string{"ls-files", "-s", "-z"}, env: ix.env()})
	if err != nil {
		return nil, err
	}
	byPath := map[string]string{}
	for _, rec := range splitZ(out) {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("unexpected git ls-files record %q", rec)
		}
		byPath[path] = f[1]
	}
	ids := make([]string, len(entries))
	for i, e := range entries {
		id, ok := byPath[e.Path]
		if !ok {
			return nil, fmt.Errorf("git ls-files did not list %s", e.Path)
		}
		ids[i] = id
	}
	return ids, nil
}

// Private index files and index.lock: which are whose.
//
// CopyIndex names a private index <name>-<pid>-<random>.index in the git
// dir, so a file left by a process that was killed says which process made
// it. git writes such an index through <file>.lock, which a kill leaves
// too. The user's index.lock is taken by InstallIndex as a hard link to the
// private index it installs, so an index.lock left by a killed install is
// the same file as a private index still beside it: that, and only that,
// proves that the lock is ours. Every other index.lock may belong to a
// running git process and is never removed here.

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
func (r *Repo) LeftoverIndexes(name string) ([]LeftoverIndex, error) {
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
func (r *Repo) RemoveLeftover(name string, l LeftoverIndex) error {
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
func (r *Repo) PrivateIndex(name string) (Index, func(), error) {
	return r.emptyPrivateIndex(name)
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
func (r *Repo) newPrivateIndex(name string) (*os.File, Index, func(), error) {
	for {
		path := filepath.Join(r.GitDir, fmt.Sprintf("%s-%d-%d.index", name, os.Getpid(), privateIndexSeq.Add(1)))
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, Index{}, nil, err
		}
		return f, Index{Path: path}, func() {
			os.Remove(path)
			os.Remove(path + ".lock")
		}, nil
	}
}

// emptyPrivateIndex is newPrivateIndex for an index that starts empty: the
// file is left absent, which is how git spells an empty index (git refuses
// an empty file), and is created by the first git command that writes it.
func (r *Repo) emptyPrivateIndex(name string) (Index, func(), error) {
	f, ix, remove, err := r.newPrivateIndex(name)
	if err != nil {
		return Index{}, nil, err
	}
	f.Close()
	remove()
	return ix, remove, nil
}

// HashWorkTreePaths returns, for each path that holds something in the
// work tree now, the entry `git add` would record: content through the
// clean and end-of-line filters, executable bit, symlink, or a
// submodule's checked-out commit; the objects are written. Paths with
// nothing in the work tree are left out. seeds are the user's index entries
// of those paths: git's rules that look at the current entry
// (core.fileMode=false, core.symlinks=false, the autocrlf rule for files
// committed with CRLF) see them as git add would. It works in a small index
// of its own (one update-index call, read back here); the user's index is
// not read or written. attrsChanged tells that a .gitattributes file
// differs between the work tree and the index (git status lists it): git
// may then read the index's copy, which only git does.
func (r *Repo) HashWorkTreePaths(ctx context.Context, seeds []IndexEntry, paths []string, attrsChanged bool) ([]IndexEntry, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	if !attrsChanged {
		if out, ok := r.hashHere(paths); ok {
			return out, nil
		}
	}
	ix, remove, err := r.emptyPrivateIndex("nudge-hash")
	if err != nil {
		return nil, err
	}
	defer remove()
	args := append(append([]string{}, privateIndexArgs...), "-c", "index.version=2",
		"update-index", "--add", "--remove", "--replace")
	// Seeds ride on the command line while it stays short; past that they
	// take a call of their own.
	argBytes := 0
	for _, s := range seeds {
		argBytes += len(s.Path) + 80
	}
	if argBytes <= 64<<10 {
		for _, s := range seeds {
			args = append(args, "--cacheinfo", s.Mode+","+s.Blob+","+s.Path)
		}
	} else if err := r.UpdateIndexEntries(ctx, ix, seeds); err != nil {
		return nil, err
	}
	args = append(args, "-z", "--stdin")
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(p)
		in.WriteByte(0)
	}
	if _, err := r.run(ctx, cmd{args: args, env: ix.env(), stdin: &in}); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(ix.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // every path was a removal
	}
	if err != nil {
		return nil, err
	}
	return parseIndex(data, r.hashLen())
}

// hashHere is HashWorkTreePaths in this process, where git would convert
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
func (r *Repo) hashHere(paths []string) ([]IndexEntry, bool) {
	if !r.fastOK() || !r.plainCheckin() {
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
	out := make([]IndexEntry, 0, len(paths))
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
				err = errSlowPath
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
			data, mode = []byte(target), ModeSymlink
		default:
			return nil, false
		}
		id, err := r.writeObject("blob", data)
		if err != nil {
			return nil, false
		}
		out = append(out, IndexEntry{Mode: mode, Blob: id, Path: p})
	}
	// In the index's order, as git's answer comes.
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, true
}

// maxHashHere is the largest file hashHere reads itself.
const maxHashHere = 32 << 20

// plainCheckin reports whether git would store work-tree files as their
// bytes, whatever their path: the repository-wide half of hashHere's test.
// Attributes can also come from git's system-wide file (as for config: known
// only for a git under /usr), from a tree (GIT_ATTR_SOURCE, attr.tree) or a
// file named in the config (core.attributesFile).
func (r *Repo) plainCheckin() bool {
	if _, err := os.Lstat(filepath.Join(r.CommonDir, "info", "attributes")); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if os.Getenv("GIT_ATTR_SOURCE") != "" || r.ConfigMayMention("attr", "sparse") {
		return false
	}
	if v := strings.ToLower(os.Getenv("GIT_ATTR_NOSYSTEM")); v != "1" && v != "true" && v != "yes" && v != "on" {
		if _, known := systemConfigFile(); !known {
			return false
		}
		if _, err := os.Lstat("/etc/gitattributes"); !errors.Is(err, fs.ErrNotExist) {
			return false
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" {
			xdg = filepath.Join(home, ".config")
		}
		if _, err := os.Lstat(filepath.Join(xdg, "git", "attributes")); !errors.Is(err, fs.ErrNotExist) {
			return false
		}
	} else {
		return false
	}
	for _, c := range []struct{ key, want string }{{"autocrlf", "false"}, {"filemode", "true"}, {"symlinks", "true"}} {
		v, found, ok := r.configLast("core", c.key)
		if !ok || found && v != c.want {
			return false
		}
	}
	return true
}

// privateIndexArgs keep a private index self-contained: never split into a
// shared index file in the git dir.
var privateIndexArgs = []string{"-c", "core.splitIndex=false"}
