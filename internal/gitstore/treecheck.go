package gitstore

// This file holds the checks of a tree's entries before anything is written from it.

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// TreeProblem is one thing in a tree object that git fsck --strict would
// refuse (or that would make writing the tree's files ambiguous).
type TreeProblem struct {
	Folder string // the folder holding the entry ("" at the top level)
	Name   string // the entry's name as stored (may be empty or odd)
	Mode   string // the entry's mode as stored
	// Code is git fsck's message id for the problem: duplicateEntries,
	// treeNotSorted, emptyName, hasDot, hasDotdot, fullPathname,
	// hasDotgit, badFilemode, zeroPaddedFilemode, nullSha1; or badTree
	// (the folder is not a readable tree), missingTree (not in the
	// objects), with Mode holding what the object is instead.
	Code string
}

// CheckTree reads every tree object of tree that differs from the tree at
// the same place in base (so that the cost follows what changed, the way
// diff-tree descends) and reports what git fsck's tree rules refuse:
// duplicate names (also a file and a folder of one name), entries out of
// git's order, names that are empty, ".", "..", contain "/" or spell ".git"
// in any way git's verify_path refuses, unknown or zero-padded modes, null
// ids, a folder entry that is not a tree, missing trees. base may be ""
// (check every tree). Each distinct tree object is read once, so a tree
// that refers to one subtree many times costs one read. Trees are given as
// tree-ish expressions ("<commit>^{tree}") or ids. Trees are read in this
// process where it can (ReadObjectHere's rule), the others from one
// `git cat-file --batch`, started only when needed; either way one folder
// level at a time, so that the cost is a few round trips, not one per
// tree.
func (r *Store) CheckTree(ctx context.Context, tree, base string) ([]TreeProblem, error) {
	rd := &treeReader{r: r, ctx: ctx, here: r.fastOK() && !r.MayReplace()}
	defer rd.close()
	// Entries are parsed with their ids as raw bytes (parseTreeRawIDs);
	// only the folders read next are written out in hex.
	rawZero := string(make([]byte, r.HashLen()))
	type job struct{ folder, tree, base string }
	var problems []TreeProblem
	seen := map[string]bool{}
	level := []job{{tree: tree, base: base}}
	for len(level) > 0 {
		// The level's trees and their bases, read together.
		var want []string
		for _, j := range level {
			want = append(want, j.tree)
			if j.base != "" {
				want = append(want, j.base)
			}
		}
		got, err := rd.readAll(want)
		if err != nil {
			return nil, err
		}
		var next []job
		k := 0
		for _, j := range level {
			a := got[k]
			k++
			var b treeAnswer
			if j.base != "" {
				b = got[k]
				k++
			}
			var entries []treeEntry
			if a.kind == "tree" {
				var err error
				if entries, err = parseTreeRawIDs(a.data, r.HashLen()); err != nil {
					a.kind = "corrupt"
				}
			}
			switch a.kind {
			case "tree":
			case "missing":
				problems = append(problems, TreeProblem{Folder: j.folder, Code: "missingTree"})
				continue
			default:
				problems = append(problems, TreeProblem{Folder: j.folder, Code: "badTree", Mode: a.kind})
				continue
			}
			var baseDirs map[string]string
			if b.kind == "tree" {
				baseDirs = treeFolders(b.data, r.HashLen())
			}
			problems = append(problems, checkEntries(j.folder, entries, rawZero)...)
			for _, e := range entries {
				if e.mode != "40000" && e.mode != "040000" {
					continue
				}
				if b, ok := baseDirs[e.name]; ok && b == e.oid {
					continue // the same folder as the base's: nothing changed in it
				}
				if seen[e.oid] || !validEntryName(e.name) {
					continue
				}
				seen[e.oid] = true
				base := ""
				if b, ok := baseDirs[e.name]; ok {
					base = hex.EncodeToString([]byte(b))
				}
				next = append(next, job{folder: joinFolder(j.folder, e.name), tree: hex.EncodeToString([]byte(e.oid)), base: base})
			}
		}
		level = next
	}
	return problems, nil
}

// treeAnswer is what a treeReader found for one tree-ish.
type treeAnswer struct {
	kind string // "tree", "missing" or the object's type
	data []byte // a tree's content, parsed where it is used
}

// treeReader reads trees for CheckTree: in this process where it can
// (here), the others from one git cat-file --batch started on first need.
type treeReader struct {
	r    *Store
	ctx  context.Context
	here bool
	cat  Proc
}

func (rd *treeReader) close() {
	if rd.cat != nil {
		_ = rd.cat.Close()
	}
}

// readHere answers treeish in this process; ok is false when git is to
// be asked (not readable here, or missing here).
func (rd *treeReader) readHere(treeish string) (treeAnswer, bool) {
	r := rd.r
	if !rd.here {
		return treeAnswer{}, false
	}
	id := treeish
	if c, ok := strings.CutSuffix(treeish, "^{tree}"); ok {
		if !r.validID(c) {
			return treeAnswer{}, false
		}
		typ, data, ok := r.readObjectDepth(c, 0)
		if !ok || typ != "commit" {
			return treeAnswer{}, false
		}
		line, _, _ := bytes.Cut(data, []byte("\n"))
		t, ok := bytes.CutPrefix(line, []byte("tree "))
		if !ok {
			return treeAnswer{}, false
		}
		id = string(t)
	}
	if !r.validID(id) {
		return treeAnswer{}, false
	}
	typ, data, ok := r.readObjectDepth(id, 0)
	if !ok {
		return treeAnswer{}, false
	}
	if typ != "tree" {
		return treeAnswer{kind: typ}, true
	}
	return treeAnswer{kind: "tree", data: data}, true
}

// readGit reads the answers of git cat-file for every treeish, sent in
// one go (from their own goroutine: a pipe holds only so much).
func (rd *treeReader) readGit(treeishes []string) ([]treeAnswer, error) {
	if rd.cat == nil {
		var err error
		if rd.cat, err = rd.r.Git.StartProc(rd.ctx, "cat-file", "--batch"); err != nil {
			return nil, err
		}
	}
	cat := rd.cat
	wrote := make(chan error, 1)
	go func() {
		var req bytes.Buffer
		for _, t := range treeishes {
			req.WriteString(t + "\n")
		}
		_, err := cat.Stdin().Write(req.Bytes())
		wrote <- err
	}()
	out := make([]treeAnswer, len(treeishes))
	var rerr error
	for i := range treeishes {
		header, err := cat.Stdout().ReadString('\n')
		if err != nil {
			rerr = err
			break
		}
		f := strings.Fields(header)
		if len(f) == 2 && f[1] == "missing" {
			out[i] = treeAnswer{kind: "missing"}
			continue
		}
		if len(f) != 3 {
			rerr = fmt.Errorf("git cat-file: unexpected header %q", strings.TrimSpace(header))
			break
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size < 0 {
			rerr = fmt.Errorf("git cat-file: unexpected header %q", strings.TrimSpace(header))
			break
		}
		data := make([]byte, size+1)
		if _, err := io.ReadFull(cat.Stdout(), data); err != nil {
			rerr = err
			break
		}
		if f[1] != "tree" {
			out[i] = treeAnswer{kind: f[1]}
			continue
		}
		out[i] = treeAnswer{kind: "tree", data: data[:size]}
	}
	if rerr != nil {
		cat.Kill()
		<-wrote
		err := cat.Fail(rerr)
		rd.cat = nil
		return nil, err
	}
	if werr := <-wrote; werr != nil {
		err := cat.Fail(werr)
		rd.cat = nil
		return nil, err
	}
	return out, nil
}

// readAll answers every treeish: here where possible, the rest from git
// in one batch.
func (rd *treeReader) readAll(treeishes []string) ([]treeAnswer, error) {
	out := make([]treeAnswer, len(treeishes))
	var rest []string
	var restIdx []int
	for i, t := range treeishes {
		a, ok := rd.readHere(t)
		if ok {
			out[i] = a
			continue
		}
		rest = append(rest, t)
		restIdx = append(restIdx, i)
	}
	if len(rest) > 0 {
		got, err := rd.readGit(rest)
		if err != nil {
			return nil, err
		}
		for k, i := range restIdx {
			out[i] = got[k]
		}
	}
	return out, nil
}

func joinFolder(folder, name string) string {
	if folder == "" {
		return name
	}
	return folder + "/" + name
}

// parseTreeRawIDs is parseTree with each entry's id kept as its raw bytes
// (a string of hashLen bytes): the check of a tree looks at every entry
// but follows only a few.
func parseTreeRawIDs(data []byte, hashLen int) ([]treeEntry, error) {
	return parseTreeEntries(data, hashLen, func(raw []byte) string { return string(raw) })
}

// treeFolders returns the folder entries (mode 40000) of a tree's
// content, by name, with raw ids; nothing else of it is copied. A tree
// that cannot be parsed has none.
func treeFolders(data []byte, hashLen int) map[string]string {
	out := map[string]string{}
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			return nil
		}
		nul := bytes.IndexByte(data[sp:], 0)
		if nul < 0 || sp+nul+1+hashLen > len(data) {
			return nil
		}
		nul += sp
		if string(data[:sp]) == "40000" {
			out[string(data[sp+1:nul])] = string(data[nul+1 : nul+1+hashLen])
		}
		data = data[nul+1+hashLen:]
	}
	return out
}

// checkEntries applies git fsck's rules to the entries of one tree (ids
// compared with zero in whatever form the entries hold them).
func checkEntries(folder string, entries []treeEntry, zero string) []TreeProblem {
	var out []TreeProblem
	names := map[string]bool{}
	for i, e := range entries {
		add := func(code string) {
			out = append(out, TreeProblem{Folder: folder, Name: e.name, Mode: e.mode, Code: code})
		}
		switch {
		case e.name == "":
			add("emptyName")
		case e.name == ".":
			add("hasDot")
		case e.name == "..":
			add("hasDotdot")
		case strings.Contains(e.name, "/"):
			add("fullPathname")
		case isDotGitName(e.name):
			add("hasDotgit")
		}
		switch e.mode {
		case "100644", "100755", "120000", "40000", "160000":
		case "040000":
			add("zeroPaddedFilemode")
		default:
			add("badFilemode")
		}
		if e.oid == zero {
			add("nullSha1")
		}
		if names[e.name] {
			add("duplicateEntries")
		} else if i > 0 {
			p := entries[i-1]
			if !treeNameLess(p.name, isTreeMode(p.mode), e.name, isTreeMode(e.mode)) {
				add("treeNotSorted")
			}
		}
		names[e.name] = true
	}
	return out
}

func isTreeMode(m string) bool { return m == "40000" || m == "040000" }

func validEntryName(n string) bool {
	return n != "" && n != "." && n != ".." && !strings.Contains(n, "/") && !isDotGitName(n)
}

// isDotGitName matches the names git's fsck and verify_path treat as
// ".git": any case, trailing dots or spaces (NTFS), an NTFS alternate
// stream (".git::$INDEX_ALLOCATION"), the short name git~1, and ".git"
// with characters HFS+ ignores (zero-width joiners and the like).
func isDotGitName(n string) bool {
	n = strings.Map(func(r rune) rune {
		switch {
		case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
			return -1
		}
		return r
	}, n)
	if i := strings.IndexByte(n, ':'); i >= 0 {
		n = n[:i]
	}
	t := strings.TrimRight(n, ". ")
	return strings.EqualFold(t, ".git") || strings.EqualFold(t, "git~1")
}
