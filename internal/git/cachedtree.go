package git

import "os"

// CachedTree is the tree git write-tree would write from the index ix,
// read from its cache-tree without a git process: "" unless the
// cache-tree covers every entry, the index holds only what a tree can (no
// conflict stages, intent-to-add or skip-worktree entries, no split or
// sparse index: see indexCacheTree) and the tree is in the object store.
// A caller given "" asks git (WriteTree).
func (r *Repo) CachedTree(ix Index) string {
	if ix.Path == "" || !r.fastOK() {
		return ""
	}
	data, err := os.ReadFile(ix.Path)
	if err != nil {
		return ""
	}
	t, plain := indexCacheTree(data, r.hashLen())
	if !plain || t == "" || !r.hasObject(t) {
		return ""
	}
	return t
}
