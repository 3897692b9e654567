package gitindex

// This file holds the index's cache-tree extension: parsed, brought up to date along
// edited paths from what the trees became, invalidated, and encoded again.

import (
	"bytes"
	"encoding/hex"
	"github.com/nudgethis/git-nudge/internal/gitstore"
	"sort"
	"strconv"
	"strings"
)

// cacheTree is one node of an index's cache-tree extension: a folder, the
// number of index entries under it (-1: invalid) and its tree id.
type cacheTree struct {
	name     string
	count    int
	oid      []byte
	children []*cacheTree
}

// parseCacheTree decodes a TREE extension: nodes in pre-order, each
// "name NUL count SP subtrees LF [id]".
func parseCacheTree(data []byte, hashLen int) (*cacheTree, bool) {
	var parse func() (*cacheTree, bool)
	parse = func() (*cacheTree, bool) {
		nul := bytes.IndexByte(data, 0)
		if nul < 0 {
			return nil, false
		}
		n := &cacheTree{name: string(data[:nul])}
		data = data[nul+1:]
		lf := bytes.IndexByte(data, '\n')
		if lf < 0 {
			return nil, false
		}
		cs, ss, ok := strings.Cut(string(data[:lf]), " ")
		if !ok {
			return nil, false
		}
		c, err1 := strconv.Atoi(cs)
		subs, err2 := strconv.Atoi(ss)
		if err1 != nil || err2 != nil || subs < 0 || c < -1 {
			return nil, false
		}
		data = data[lf+1:]
		n.count = c
		if c >= 0 {
			if len(data) < hashLen {
				return nil, false
			}
			n.oid = data[:hashLen:hashLen]
			data = data[hashLen:]
		}
		for i := 0; i < subs; i++ {
			ch, ok := parse()
			if !ok {
				return nil, false
			}
			n.children = append(n.children, ch)
		}
		return n, true
	}
	root, ok := parse()
	if !ok || len(data) != 0 || root.name != "" {
		return nil, false
	}
	return root, true
}

func (n *cacheTree) encode(out []byte) []byte {
	out = append(out, n.name...)
	out = append(out, 0)
	out = strconv.AppendInt(out, int64(n.count), 10)
	out = append(out, ' ')
	out = strconv.AppendInt(out, int64(len(n.children)), 10)
	out = append(out, '\n')
	if n.count >= 0 {
		out = append(out, n.oid...)
	}
	for _, c := range n.children {
		out = c.encode(out)
	}
	return out
}

// child finds the folder name under n (-1: none).
func (n *cacheTree) child(name string) int {
	for i, c := range n.children {
		if c.name == name {
			return i
		}
	}
	return -1
}

// insert adds c in git's order of subtrees: shorter names first, then by
// bytes.
func (n *cacheTree) insert(c *cacheTree) {
	i := sort.Search(len(n.children), func(i int) bool {
		o := n.children[i].name
		if len(o) != len(c.name) {
			return len(o) > len(c.name)
		}
		return o > c.name
	})
	n.children = append(n.children, nil)
	copy(n.children[i+1:], n.children[i:])
	n.children[i] = c
}

// invalidate marks the folders on path invalid and drops a folder of
// path's own name, as git does for an entry added or removed there.
func (n *cacheTree) invalidate(path string) {
	n.count, n.oid = -1, nil
	dir, rest, more := strings.Cut(path, "/")
	if !more {
		if i := n.child(dir); i >= 0 {
			n.children = append(n.children[:i], n.children[i+1:]...)
		}
		return
	}
	if i := n.child(dir); i >= 0 {
		n.children[i].invalidate(rest)
	}
}

// update brings the folders of an edit up to date: each folder's tree
// from folders (as EditTreeFolders of the index's tree reported them) and
// its entry count moved by delta. It reports false when the cache-tree
// does not match what the tree said (the caller then invalidates).
func (n *cacheTree) update(folders map[string]gitstore.FolderEdit, delta map[string]int, hashLen int) bool {
	dirs := make([]string, 0, len(folders))
	for d := range folders {
		dirs = append(dirs, d)
	}
	// Parents before their folders.
	sort.Slice(dirs, func(i, j int) bool {
		di, dj := strings.Count(dirs[i], "/"), strings.Count(dirs[j], "/")
		if dirs[i] == "" || dirs[j] == "" {
			return dirs[i] == "" && dirs[j] != ""
		}
		if di != dj {
			return di < dj
		}
		return dirs[i] < dirs[j]
	})
	for _, d := range dirs {
		fe := folders[d]
		oid, err := hex.DecodeString(fe.Tree)
		if err != nil || len(oid) != hashLen {
			return false
		}
		if d == "" {
			if n.count < 0 || hex.EncodeToString(n.oid) != fe.Base {
				return false
			}
			n.count += delta[""]
			n.oid = oid
			continue
		}
		parent := n
		parts := strings.Split(d, "/")
		for _, p := range parts[:len(parts)-1] {
			i := parent.child(p)
			if i < 0 {
				parent = nil
				break
			}
			parent = parent.children[i]
		}
		if parent == nil {
			if fe.Empty {
				continue // its parent went away with it
			}
			return false
		}
		name := parts[len(parts)-1]
		i := parent.child(name)
		switch {
		case fe.Empty:
			if i >= 0 {
				parent.children = append(parent.children[:i], parent.children[i+1:]...)
			} else if fe.Base != "" {
				return false
			}
		case i < 0:
			if fe.Base != "" {
				return false // a folder of the tree with no node
			}
			parent.insert(&cacheTree{name: name, count: delta[d], oid: oid})
		default:
			c := parent.children[i]
			if c.count < 0 || hex.EncodeToString(c.oid) != fe.Base {
				return false
			}
			c.count += delta[d]
			c.oid = oid
		}
	}
	return true
}
