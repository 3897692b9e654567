package git

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// headTreeFast is HeadTree read from the files, with no git process: HEAD
// (a regular file naming a branch under refs/heads/, or a commit id), the
// branch's loose or packed ref, and the tree line of its commit when that
// commit is a loose object (what a checkpoint or a commit just made
// leaves). ok is false whenever git should answer instead: the in-process
// rule says no (fastOK), an unborn branch, a symbolic-link HEAD, a commit
// only in a pack, or replace refs, which git would follow to another
// commit's tree.
func (r *Repo) headTreeFast() (h Head, tree string, ok bool) {
	if !r.fastOK() || os.Getenv("GIT_REPLACE_REF_BASE") != "" {
		return Head{}, "", false
	}
	b, err := readSmall(filepath.Join(r.GitDir, "HEAD"))
	if err != nil {
		return Head{}, "", false
	}
	v := strings.TrimRight(string(b), "\n")
	if branch, isRef := strings.CutPrefix(v, "ref: "); isRef {
		rest, under := strings.CutPrefix(branch, "refs/heads/")
		if !under {
			return Head{}, "", false
		}
		for _, c := range strings.Split(rest, "/") {
			if !goodRefComponent(c) || strings.HasSuffix(c, ".lock") {
				return Head{}, "", false
			}
		}
		id, exists, handled := r.readOneRef(branch)
		if !handled || !exists {
			return Head{}, "", false
		}
		h = Head{Branch: branch, Commit: id}
	} else if r.validID(v) {
		h.Commit = v
	} else {
		return Head{}, "", false
	}
	if r.mayReplace() {
		return Head{}, "", false
	}
	typ, data, found, err := r.readLoose(h.Commit)
	if err != nil || !found || typ != "commit" {
		return Head{}, "", false
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	t, isTree := bytes.CutPrefix(line, []byte("tree "))
	if !isTree || !r.validID(string(t)) {
		return Head{}, "", false
	}
	return h, string(t), true
}

// mayReplace reports whether the repository may hold replace refs (a
// refs/replace folder, or a packed-refs file naming one): git reads a
// replaced commit's tree from its replacement.
func (r *Repo) mayReplace() bool {
	if _, err := os.Lstat(filepath.Join(r.CommonDir, "refs", "replace")); !errors.Is(err, fs.ErrNotExist) {
		return true
	}
	pb, err := os.ReadFile(filepath.Join(r.CommonDir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	return err != nil || bytes.Contains(pb, []byte(" refs/replace/"))
}
