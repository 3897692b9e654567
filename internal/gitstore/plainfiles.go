package gitstore

// This file holds when git converts nothing for a set of paths, and
// reading blobs in this process for them.

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// PlainFiles reports whether git converts nothing, either way, for any of
// paths (work-tree paths, slash-separated): hashing a file (git add,
// hash-object) stores its bytes as they are, and checking a blob out
// (checkout, cat-file --filters) writes its bytes as they are. That holds
// when no attributes can apply (no .gitattributes in the work tree's top
// folder nor in any folder leading to a path, no info/attributes, no
// global or system attributes file, no attribute setting in the config;
// see PlainCheckin), core.autocrlf is off (the only conversion without
// attributes), and this process reads git's files itself (fastOK). Then
// the id git gives a file is the id of its bytes, and the bytes checkout
// writes for a blob are the blob's. A .gitattributes among paths, a
// leading folder that cannot be looked at (a file or symlink in the way,
// a permission error) or anything unusual answers false: ask git.
func (r *Store) PlainFiles(paths []string) bool {
	if !r.fastOK() || !r.PlainCheckin() {
		return false
	}
	root, err := os.OpenRoot(r.WorkTree)
	if err != nil {
		return false
	}
	defer root.Close()
	looked := map[string]bool{}
	for _, p := range paths {
		if p == "" || path.Base(p) == ".gitattributes" || !fs.ValidPath(p) {
			return false
		}
		dir := path.Dir(p)
		for {
			if looked[dir] {
				break
			}
			looked[dir] = true
			if _, err := root.Lstat(path.Join(dir, ".gitattributes")); !errors.Is(err, fs.ErrNotExist) {
				// There, or not known: git would read it.
				if err == nil || !errors.Is(err, syscall.ENOTDIR) {
					return false
				}
			}
			if dir == "." {
				break
			}
			dir = path.Dir(dir)
		}
	}
	return !r.headHasAttributes(looked)
}

// headHasAttributes reports whether HEAD's tree holds a .gitattributes in
// one of dirs, or it cannot tell (an unborn branch, an object not read
// here): git also reads one from the index when the work tree lacks it
// (deleted there, or skip-worktree), and the index of a checkout holds
// HEAD's unless the user staged otherwise. Read here, a folder at a time.
func (r *Store) headHasAttributes(dirs map[string]bool) bool {
	_, root, ok := r.HeadTreeFast()
	if !ok {
		return true
	}
	type folder struct {
		id      string // "" when HEAD has no such folder
		unknown bool
	}
	read := map[string][]treeEntry{}
	entriesOf := func(id string) ([]treeEntry, bool) {
		if entries, ok := read[id]; ok {
			return entries, true
		}
		typ, data, found := r.ReadObjectHere(id)
		if !found || typ != "tree" {
			return nil, false
		}
		entries, err := parseTree(data, r.HashLen())
		if err != nil {
			return nil, false
		}
		read[id] = entries
		return entries, true
	}
	seen := map[string]folder{".": {id: root}}
	var look func(dir string) folder
	look = func(dir string) folder {
		if f, ok := seen[dir]; ok {
			return f
		}
		f := look(path.Dir(dir))
		if f.id != "" && !f.unknown {
			entries, ok := entriesOf(f.id)
			f = folder{unknown: !ok}
			for _, e := range entries {
				if e.name == path.Base(dir) && e.mode == "40000" {
					f.id = e.oid
				}
			}
		}
		seen[dir] = f
		return f
	}
	for dir := range dirs {
		f := look(dir)
		if f.unknown {
			return true
		}
		if f.id == "" {
			continue // not in HEAD: nothing of it to read
		}
		entries, ok := entriesOf(f.id)
		if !ok {
			return true
		}
		for _, e := range entries {
			if e.name == ".gitattributes" {
				return true
			}
		}
	}
	return false
}

// BlobReader reads blobs in this process where it can (loose objects and
// packs, see ReadObjectHere), the repository-wide conditions worked out
// once.
type BlobReader struct {
	r  *Store
	ok bool
}

// NewBlobReader returns a BlobReader for r.
func (r *Store) NewBlobReader() *BlobReader {
	return &BlobReader{r: r, ok: r.fastOK() && !r.MayReplace()}
}

// Read returns the content of blob id; ok is false when it cannot be read
// here (not a blob, not found, a pack it does not read), and git is to be
// asked. What it returns hashes to id.
func (b *BlobReader) Read(id string) (data []byte, ok bool) {
	if !b.ok || !b.r.validID(id) {
		return nil, false
	}
	typ, data, ok := b.r.readObjectDepth(id, 0)
	if !ok || typ != "blob" {
		return nil, false
	}
	return data, true
}

// PlainCheckin reports whether git would store work-tree files as their
// bytes, whatever their path: the repository-wide half of HashHere's test.
// Attributes can also come from git's system-wide file (as for config: known
// only for a git under /usr), from a tree (GIT_ATTR_SOURCE, attr.tree) or a
// file named in the config (core.attributesFile).
func (r *Store) PlainCheckin() bool {
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
		v, found, ok := r.ConfigLast("core", c.key)
		if !ok || found && v != c.want {
			return false
		}
	}
	return true
}
