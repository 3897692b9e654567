package git

// This file holds the checks of a tree's entries before anything is written from it.

import (
	"context"
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
// tree-ish expressions ("<commit>^{tree}") or ids.
func (r *Repo) CheckTree(ctx context.Context, tree, base string) ([]TreeProblem, error) {
	cat, err := r.startProc(ctx, "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	defer cat.close()
	read := func(treeish string) (kind string, entries []treeEntry, err error) {
		if _, err := io.WriteString(cat.in, treeish+"\n"); err != nil {
			return "", nil, cat.fail(err)
		}
		header, err := cat.out.ReadString('\n')
		if err != nil {
			return "", nil, cat.fail(err)
		}
		f := strings.Fields(header)
		if len(f) == 2 && f[1] == "missing" {
			return "missing", nil, nil
		}
		if len(f) != 3 {
			return "", nil, fmt.Errorf("git cat-file: unexpected header %q", strings.TrimSpace(header))
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size < 0 {
			return "", nil, fmt.Errorf("git cat-file: unexpected header %q", strings.TrimSpace(header))
		}
		data := make([]byte, size+1)
		if _, err := io.ReadFull(cat.out, data); err != nil {
			return "", nil, cat.fail(err)
		}
		if f[1] != "tree" {
			return f[1], nil, nil
		}
		entries, err = parseTree(data[:size], r.hashLen())
		if err != nil {
			return "corrupt", nil, nil
		}
		return "tree", entries, nil
	}

	type job struct{ folder, tree, base string }
	var problems []TreeProblem
	seen := map[string]bool{}
	queue := []job{{tree: tree, base: base}}
	for len(queue) > 0 {
		j := queue[0]
		queue = queue[1:]
		kind, entries, err := read(j.tree)
		if err != nil {
			return nil, err
		}
		switch kind {
		case "tree":
		case "missing":
			problems = append(problems, TreeProblem{Folder: j.folder, Code: "missingTree"})
			continue
		default:
			problems = append(problems, TreeProblem{Folder: j.folder, Code: "badTree", Mode: kind})
			continue
		}
		baseDirs := map[string]string{}
		if j.base != "" {
			bkind, bentries, err := read(j.base)
			if err != nil {
				return nil, err
			}
			if bkind == "tree" {
				for _, e := range bentries {
					if e.mode == "40000" {
						baseDirs[e.name] = e.oid
					}
				}
			}
		}
		problems = append(problems, checkEntries(j.folder, entries, r.ZeroID())...)
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
			queue = append(queue, job{folder: joinFolder(j.folder, e.name), tree: e.oid, base: baseDirs[e.name]})
		}
	}
	return problems, nil
}

func joinFolder(folder, name string) string {
	if folder == "" {
		return name
	}
	return folder + "/" + name
}

// checkEntries applies git fsck's rules to the entries of one tree.
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
