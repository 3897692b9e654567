package gitstore

import "bytes"

// ObjectsWithinHere returns, for each of commits, the objects of within
// that the commit reaches through objects of within alone: the commit
// itself, its tree and, below each tree within holds, the entries within
// holds. within is meant to be what some refs reach and the others do
// not (git rev-list --objects A --not B): an object it does not hold is
// reached from elsewhere, and so is everything below it, so the walk
// reads no object outside within. A commit within does not hold gets
// nothing. ok is false when an object cannot be read in this process or
// replace refs may apply; git then answers.
func (r *Store) ObjectsWithinHere(commits []string, within map[string]int64) (map[string][]string, bool) {
	if !r.fastOK() || r.MayReplace() {
		return nil, false
	}
	hashLen := r.HashLen()
	var walk func(tree string, acc []string) ([]string, bool)
	walk = func(tree string, acc []string) ([]string, bool) {
		acc = append(acc, tree)
		typ, data, ok := r.ReadObjectHere(tree)
		if !ok || typ != "tree" {
			return nil, false
		}
		entries, err := parseTree(data, hashLen)
		if err != nil {
			return nil, false
		}
		for _, e := range entries {
			if _, in := within[e.oid]; !in || e.mode == "160000" {
				continue
			}
			if e.mode == "40000" {
				if acc, ok = walk(e.oid, acc); !ok {
					return nil, false
				}
				continue
			}
			acc = append(acc, e.oid)
		}
		return acc, true
	}
	out := make(map[string][]string, len(commits))
	for _, c := range commits {
		if _, in := within[c]; !in {
			out[c] = nil
			continue
		}
		typ, data, ok := r.ReadObjectHere(c)
		if !ok || typ != "commit" {
			return nil, false
		}
		line, _, _ := bytes.Cut(data, []byte("\n"))
		t, isTree := bytes.CutPrefix(line, []byte("tree "))
		if !isTree || !r.validID(string(t)) {
			return nil, false
		}
		acc := []string{c}
		if _, in := within[string(t)]; in {
			if acc, ok = walk(string(t), acc); !ok {
				return nil, false
			}
		}
		out[c] = acc
	}
	return out, true
}
