package gitindex

// This file writes the tree of an index file in this process, as git
// write-tree does: folders its cache-tree holds valid are taken as they
// are, the others are worked out from the entries, in the index's order.

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/nudgethis/git-nudge/internal/gitstore"
)

// IndexTreeHere writes the tree git write-tree would write from the index
// file data (the whole file) and returns its id; ok is false when the
// caller should ask git: objects are not written in this process here
// (see InProcess), the index is one git reads differently or refuses
// (version 4, a split or sparse index, an extension this process does
// not know, index.skipHash), it holds what a tree cannot (conflict
// stages, intent-to-add, skip-worktree or assume-unchanged entries), an
// entry has a mode git would not write, names out of order or a file
// and a folder of one name next to each other, an entry names an object
// that is not in the store here, or the trees could not be written.
// Folders whose cache-tree is valid and whose tree is in the store are
// used as they are, as git uses them; the trees worked out are written
// as loose objects.
func (r *Files) IndexTreeHere(data []byte) (tree string, ok bool) {
	if !r.InProcess() {
		return "", false
	}
	hashLen := r.HashLen()
	ix, err := scanIndex(data, hashLen, math.MaxInt64) // no entry is racily clean: nothing is smudged here
	if err != nil || !ix.plain {
		return "", false
	}
	var root *cacheTree
	if ix.treeExt != nil {
		if root, ok = parseCacheTree(ix.treeExt, hashLen); !ok {
			return "", false
		}
	}
	// Each name after the one before it; no file followed by a folder
	// of its name (git write-tree refuses that index).
	for i := 1; i < len(ix.pos); i++ {
		prev, name := ix.nameOf(i-1), ix.nameOf(i)
		if bytes.Compare(prev, name) >= 0 {
			return "", false
		}
		if len(prev) < len(name) && name[len(prev)] == '/' && bytes.HasPrefix(name, prev) {
			return "", false
		}
	}
	w := &indexTreeWriter{r: r, ix: ix, hashLen: hashLen, seen: recentObjects(r.CommonDir)}
	n, oid, ok := w.folder(root, 0, nil)
	if !ok || n != len(ix.pos) {
		return "", false
	}
	if len(w.ids) > 0 {
		if err := gitstore.WriteLooseObjects(filepath.Join(r.CommonDir, "objects"), "tree", w.ids, w.bodies); err != nil {
			return "", false
		}
	}
	for _, id := range w.ids {
		if raw, err := hex.DecodeString(id); err == nil {
			w.found = append(w.found, string(raw))
		}
	}
	rememberObjects(r.CommonDir, w.seen, w.found)
	return hex.EncodeToString(oid), true
}

// seenObjects holds, for a moment (seenFor), the objects the last trees
// worked out here found in a repository's store or wrote there (raw
// ids): the operation log writes the tree of the index before a command
// and the one after it a moment apart, and the two name mostly the same
// objects, so the second asks the store only about the entries that
// changed. An object found in the store stays there for that moment: git
// removes only objects nothing refers to (the index does), and by
// default only weeks after they were written. The map is never changed
// once published; a new one replaces it.
var seenObjects struct {
	sync.Mutex
	dir string
	at  time.Time // when the oldest finding in ids was made
	ids map[string]struct{}
}

// seenFor is how long a finding of seenObjects is used.
const seenFor = time.Second

// recentObjects is the objects of the store of commonDir found or
// written by the trees worked out in the last moment (nil: none).
func recentObjects(commonDir string) map[string]struct{} {
	seenObjects.Lock()
	defer seenObjects.Unlock()
	if seenObjects.dir != commonDir || time.Since(seenObjects.at) > seenFor {
		return nil
	}
	return seenObjects.ids
}

// rememberObjects publishes seen (as recentObjects returned it) with the
// objects found since. The moment counts from the oldest finding: when
// seen is carried over, its time is kept.
func rememberObjects(commonDir string, seen map[string]struct{}, found []string) {
	ids := make(map[string]struct{}, len(seen)+len(found))
	for id := range seen {
		ids[id] = struct{}{}
	}
	for _, id := range found {
		ids[id] = struct{}{}
	}
	seenObjects.Lock()
	defer seenObjects.Unlock()
	if seen == nil || seenObjects.dir != commonDir {
		seenObjects.at = time.Now()
	}
	seenObjects.dir, seenObjects.ids = commonDir, ids
}

// indexTreeWriter works out the trees of an index's folders; ids and
// bodies are the trees to write.
type indexTreeWriter struct {
	r       *Files
	ix      *scannedIndex
	hashLen int
	ids     []string
	bodies  [][]byte
	seen    map[string]struct{} // objects known to be in the store (raw ids)
	found   []string            // objects found in the store since (raw ids)
}

// has says whether the object of raw id is in the store here.
func (w *indexTreeWriter) has(id []byte) bool {
	if _, ok := w.seen[string(id)]; ok {
		return true
	}
	if !w.r.HasObjectHere(hex.EncodeToString(id)) {
		return false
	}
	w.found = append(w.found, string(id))
	return true
}

// subtree is the node of n's folder called name (nil: none); of two of
// one name the last counts, as when git reads the cache-tree.
func (n *cacheTree) subtree(name []byte) *cacheTree {
	var found *cacheTree
	if n != nil {
		for _, c := range n.children {
			if c.name == string(name) {
				found = c
			}
		}
	}
	return found
}

// folder works out the tree of the folder base (its path and a "/", nil
// for the root) whose entries start at entry i, node its cache-tree (nil:
// none): it returns the number of entries under it and the tree's raw
// id; ok is false for what is left to git.
func (w *indexTreeWriter) folder(node *cacheTree, i int, base []byte) (n int, oid []byte, ok bool) {
	ix := w.ix
	under := func(j int) bool {
		return j < len(ix.pos) && bytes.HasPrefix(ix.nameOf(j), base) && len(ix.nameOf(j)) > len(base)
	}
	if node != nil && node.count >= 0 && w.has(node.oid) {
		// Valid: git takes the tree and skips its entries. The count is
		// checked against the entries, which git trusts.
		c := node.count
		if (c == 0 && base != nil) || (c > 0 && (!under(i) || !under(i+c-1))) || under(i+c) {
			return 0, nil, false
		}
		if c == 0 && under(i) {
			return 0, nil, false
		}
		return c, node.oid, true
	}
	body := make([]byte, 0, 256)
	j := i
	for under(j) {
		name := ix.nameOf(j)
		rest := name[len(base):]
		var mode uint32
		var id []byte
		var entName []byte
		if slash := bytes.IndexByte(rest, '/'); slash >= 0 {
			entName = rest[:slash]
			sub := name[:len(base)+slash+1]
			cnt, subID, ok := w.folder(node.subtree(entName), j, sub)
			if !ok || cnt == 0 {
				return 0, nil, false
			}
			j += cnt
			mode, id = 0o40000, subID
		} else {
			off := int(ix.pos[j].off)
			mode = binary.BigEndian.Uint32(ix.data[off+24:])
			id = ix.data[off+40 : off+40+w.hashLen]
			switch mode {
			case 0o100644, 0o100755, 0o120000, 0o160000:
			default:
				return 0, nil, false
			}
			if bytes.Equal(id, make([]byte, w.hashLen)) {
				return 0, nil, false
			}
			if mode != 0o160000 && !w.has(id) {
				return 0, nil, false
			}
			entName = rest
			j++
		}
		body = strconv.AppendUint(body, uint64(mode), 8)
		body = append(body, ' ')
		body = append(body, entName...)
		body = append(body, 0)
		body = append(body, id...)
	}
	treeID := w.r.ObjectID("tree", body)
	w.ids = append(w.ids, treeID)
	w.bodies = append(w.bodies, body)
	raw, err := hex.DecodeString(treeID)
	if err != nil {
		return 0, nil, false
	}
	return j - i, raw, true
}
