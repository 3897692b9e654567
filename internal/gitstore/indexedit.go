package gitstore

// This file holds the in-process editor of the user's index: a few
// entries set or removed (what `git update-index --index-info` does) at
// the cost of copying the file once, and the index's cache-tree kept
// valid along the edited paths, so that neither this step nor the next
// reader of the index's tree (the operation log) pays for every file of
// the repository in a git process. Whatever it does not handle exactly
// is left to git.

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// KnownFolders is what the caller already knows of the trees: EditTreeFolders
// of Base with edits equal to the entries being set. When the index's own
// tree is Base, the index's cache-tree is brought up to date from it
// without reading any tree again.
type KnownFolders struct {
	Base    string
	Folders map[string]FolderEdit
}

// SetIndexEntries sets the user's index entries of the given paths to
// their mode and blob (an empty Mode or Blob removes the path), leaving
// every other entry as it is: UpdateIndexEntries on the user's index. The
// new entries carry no stat data, as update-index's do. It is done in this
// process when the index is a plain one (version 2 or 3, no split, sparse
// or fsmonitor data, an untracked cache only when no path is added or
// removed, no conflict or flagged entry at these paths, no file in the way
// of a folder): under index.lock, taken before
// the index is read, written whole and renamed into place, as git does.
// Otherwise git does it.
func (r *Store) SetIndexEntries(ctx context.Context, entries []IndexEntry, known *KnownFolders) error {
	done, err := r.editIndex(ctx, entries, known)
	if done || err != nil {
		return err
	}
	return r.Git.UpdateIndexEntries(ctx, Index{}, entries)
}

// errIndexFallback says the index holds something editIndex leaves to git.
var errIndexFallback = errors.New("index left to git")

// editIndex is SetIndexEntries in this process; done is false (and
// nothing changed) when git must do it.
func (r *Store) editIndex(ctx context.Context, entries []IndexEntry, known *KnownFolders) (done bool, err error) {
	if !r.fastOK() || len(entries) == 0 {
		// fastOK: no shared repository (the lock file's mode) and no
		// fsync setting (git's default: the index is not flushed).
		return false, nil
	}
	path := r.IndexPath()
	lock := path + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		// Held by someone else (git says so in its own words), or
		// not creatable here.
		return false, nil
	}
	written := false
	defer func() {
		if !written {
			f.Close()
			os.Remove(lock)
		}
	}()
	src, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	// The file read stays open until it has been replaced: see the end.
	keep := false
	defer func() {
		if !keep {
			src.Close()
		}
	}()
	id := fileIDOf(src)
	if id == (fileID{}) {
		return false, nil
	}
	var out [][]byte
	var tree string
	var plain bool
	sum := make(chan []byte, 1)
	d, _, _, recalled := r.recalledIndex(path, src, id)
	if p := takePrepared(path, id, entries, known); recalled && p != nil && p.data == d {
		// Worked out ahead (PrepareIndexEntries) on this very file.
		out, tree, plain = p.out[:len(p.out)-1], p.tree, p.plain
		sum <- p.out[len(p.out)-1]
	} else {
		var data []byte
		if recalled {
			data = d.bytes()
		} else {
			data = bigBuffer(int(id.Size))
			if _, err := io.ReadFull(src, data); err != nil {
				return false, err
			}
		}
		out, tree, plain, err = r.editIndexData(ctx, data, id.Mtime/1e9, entries, known, true)
		if errors.Is(err, errIndexFallback) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		// The checksum is worked out while the pieces are written.
		go func() { sum <- r.indexSum(out) }()
	}
	for _, p := range out {
		if _, err = f.Write(p); err != nil {
			break
		}
	}
	out = append(out, <-sum)
	if err != nil {
		return false, err
	}
	if _, err := f.Write(out[len(out)-1]); err != nil {
		return false, err
	}
	if err := f.Close(); err != nil {
		written = true
		os.Remove(lock)
		return false, err
	}
	written = true
	if err := os.Rename(lock, path); err != nil {
		os.Remove(lock)
		return false, err
	}
	// The replaced file's blocks are freed when its last reference goes.
	// That happens here, beside the journal writes that follow, rather
	// than inside the rename: on ext4 without a journal and mounted with
	// discard, freeing 10 MB waits for the device to discard them.
	keep = true
	go src.Close()
	// The operation log reads it next: from memory, if it is still this
	// file (rename changed its ctime, so its identity is taken now).
	if nid, ok := idOfPath(path); ok {
		size := 0
		for _, p := range out {
			size += len(p)
		}
		rememberIndex(path, nid, &indexData{pieces: out, size: size}, tree, plain)
	}
	return true, nil
}

// indexPos is one entry of an index file being edited: where its bytes
// and its name are (no pointers: a 100,000-entry index is not one more
// thing for the garbage collector to scan).
type indexPos struct {
	off, end, name, nameEnd int32
	stage                   uint8
	flagged                 bool // extended flags (intent-to-add, skip-worktree) or assume-unchanged
}

// editIndexData returns the index file data with entries applied, all
// but the trailing checksum, in pieces (see pieces), and its tree when its
// cache-tree is valid and the index plain (see IndexFile); or
// errIndexFallback. gitOK false: the trees are not read (from the object
// store or by git) when known does not say what the edits did to them;
// errIndexFallback instead. indexMtime is the file's modification time (seconds):
// entries as recent are racily clean and are smudged, as git does when it
// writes an index, so that their files are compared by content next time.
func (r *Store) editIndexData(ctx context.Context, data []byte, indexMtime int64, entries []IndexEntry, known *KnownFolders, gitOK bool) (out [][]byte, tree string, plain bool, err error) {
	HashLen := r.HashLen()
	if len(data) < 12+HashLen || len(data) >= 1<<31 || string(data[:4]) != "DIRC" {
		return nil, "", false, errIndexFallback
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version != 2 && version != 3 {
		return nil, "", false, errIndexFallback
	}
	end := len(data) - HashLen
	sum := data[end:]
	if bytes.Equal(sum, make([]byte, HashLen)) {
		return nil, "", false, errIndexFallback // index.skipHash: left to git
	}
	// The file's checksum is not checked, as git does not check it when
	// it reads an index (only fsck does): what is read is checked for
	// structure instead, the way git parses it, and anything else is left
	// to git.
	count := int(binary.BigEndian.Uint32(data[8:12]))
	pos := make([]indexPos, 0, count)
	plain = true
	var racy []int // entries as recent as the index file
	off := 12
	for i := 0; i < count; i++ {
		fixed := 40 + HashLen + 2
		if off+fixed > end {
			return nil, "", false, errIndexFallback
		}
		flags := binary.BigEndian.Uint16(data[off+40+HashLen:])
		mode := binary.BigEndian.Uint32(data[off+24:])
		p := indexPos{off: int32(off), stage: uint8(flags>>12) & 3, flagged: flags&0x8000 != 0}
		if flags&0x4000 != 0 {
			if version < 3 {
				return nil, "", false, errIndexFallback
			}
			p.flagged = true
			fixed += 2
		}
		// The name's length is in the flags (git reads it from there,
		// up to 0xfff), and a NUL ends it.
		nul := int(flags & 0xfff)
		if nul == 0xfff {
			nul = bytes.IndexByte(data[off+fixed:end], 0)
		}
		if nul < 0 || off+fixed+nul >= end || data[off+fixed+nul] != 0 {
			return nil, "", false, errIndexFallback
		}
		p.name, p.nameEnd = int32(off+fixed), int32(off+fixed+nul)
		p.end = int32(off + (fixed+nul+8)&^7)
		if int(p.end) > end {
			return nil, "", false, errIndexFallback
		}
		if p.flagged || p.stage != 0 || mode&0o170000 == 0o040000 {
			plain = false
		}
		if int64(binary.BigEndian.Uint32(data[off+8:])) >= indexMtime {
			racy = append(racy, len(pos))
		}
		pos = append(pos, p)
		off = int(p.end)
	}
	// Extensions: the cache-tree is kept up to date; the untracked cache
	// is kept as it is when only tracked files change (git invalidates it
	// for an added or removed path: that is left to git); the two that
	// only help git read faster (EOIE, IEOT) are dropped; any other is
	// left to git (split index, fsmonitor, resolve-undo, sparse index).
	var treeExt, untrExt []byte
	for off+8 <= end {
		sig := string(data[off : off+4])
		size := int(binary.BigEndian.Uint32(data[off+4:]))
		body := off + 8
		if size < 0 || body+size > end {
			return nil, "", false, errIndexFallback
		}
		switch sig {
		case "TREE":
			treeExt = data[body : body+size]
		case "UNTR":
			untrExt = data[body : body+size]
		case "EOIE", "IEOT":
		default:
			return nil, "", false, errIndexFallback
		}
		off = body + size
	}
	if off != end {
		return nil, "", false, errIndexFallback
	}

	// The edits, in index order (by name).
	type edit struct {
		name      string
		mode      uint32
		oid       []byte
		remove    bool
		was       bool // a stage-0 entry was there
		at, after int  // the range of pos with this name
	}
	eds := make([]edit, 0, len(entries))
	seen := map[string]bool{}
	for _, e := range entries {
		if seen[e.Path] || e.Path == "" {
			return nil, "", false, errIndexFallback
		}
		seen[e.Path] = true
		ed := edit{name: e.Path, remove: e.Mode == "" || e.Mode == "0" || e.Blob == ""}
		if !ed.remove {
			m, err := strconv.ParseUint(e.Mode, 8, 32)
			if err != nil {
				return nil, "", false, errIndexFallback
			}
			switch m {
			case 0o100644, 0o100755, 0o120000, 0o160000:
			default:
				return nil, "", false, errIndexFallback
			}
			oid, err := hex.DecodeString(e.Blob)
			if err != nil || len(oid) != HashLen {
				return nil, "", false, errIndexFallback
			}
			ed.mode, ed.oid = uint32(m), oid
		}
		eds = append(eds, ed)
	}
	sort.Slice(eds, func(i, j int) bool { return eds[i].name < eds[j].name })
	nameOf := func(i int) []byte { return data[pos[i].name:pos[i].nameEnd] }
	find := func(name string) int {
		return sort.Search(len(pos), func(i int) bool { return string(nameOf(i)) >= name })
	}
	for i := range eds {
		ed := &eds[i]
		ed.at = find(ed.name)
		ed.after = ed.at
		for ed.after < len(pos) && string(nameOf(ed.after)) == ed.name {
			if pos[ed.after].stage != 0 || pos[ed.after].flagged {
				return nil, "", false, errIndexFallback // a conflict, or an entry git flags
			}
			ed.was = true
			ed.after++
		}
		// A file in the way of a folder, or the other way round: git
		// replaces the other entries, which is left to it.
		if k := find(ed.name + "/"); k < len(pos) && bytes.HasPrefix(nameOf(k), []byte(ed.name+"/")) {
			return nil, "", false, errIndexFallback
		}
		if untrExt != nil && (ed.remove || !ed.was) {
			return nil, "", false, errIndexFallback
		}
		for d := ed.name; ; {
			slash := strings.LastIndexByte(d, '/')
			if slash < 0 {
				break
			}
			d = d[:slash]
			if k := find(d); k < len(pos) && string(nameOf(k)) == d {
				return nil, "", false, errIndexFallback
			}
		}
	}

	// The cache-tree: brought up to date along the edited paths when it
	// was valid and the caller (or one tree read) says what the folders
	// became; else invalidated along them, as git does.
	var newTree []byte
	var validRoot bool
	var rootTree string
	if treeExt != nil {
		newCount := count
		for _, ed := range eds {
			if ed.was {
				newCount--
			}
			if !ed.remove {
				newCount++
			}
		}
		delta := map[string]int{}
		for _, ed := range eds {
			d := 0
			if ed.was {
				d--
			}
			if !ed.remove {
				d++
			}
			delta[""] += d
			for i := 0; i < len(ed.name); i++ {
				if ed.name[i] == '/' {
					delta[ed.name[:i]] += d
				}
			}
		}
		root, ok := parseCacheTree(treeExt, HashLen)
		if !ok {
			return nil, "", false, errIndexFallback
		}
		updated := false
		if plain && root.count == count {
			base := hex.EncodeToString(root.oid)
			var folders map[string]FolderEdit
			if known != nil && known.Base == base {
				folders = known.Folders
			} else if !gitOK {
				return nil, "", false, errIndexFallback
			} else if r.HasObjectHere(base) {
				edits := make([]TreeEdit, len(eds))
				for i, ed := range eds {
					edits[i] = TreeEdit{Path: ed.name}
					if !ed.remove {
						edits[i].Mode = strconv.FormatUint(uint64(ed.mode), 8)
						edits[i].Object = hex.EncodeToString(ed.oid)
					}
				}
				if _, _, fs, err := r.EditTreeFolders(ctx, base, edits); err == nil {
					folders = fs
				}
			}
			if folders != nil {
				updated = root.update(folders, delta, HashLen) && root.count == newCount
			}
			if !updated {
				root, _ = parseCacheTree(treeExt, HashLen) // as read: update may have changed it
			}
		}
		if !updated {
			for _, ed := range eds {
				root.invalidate(ed.name)
			}
		}
		newTree = root.encode(nil)
		validRoot = updated
		rootTree = hex.EncodeToString(root.oid)
	}

	// The new file, in pieces: runs of entries as they are in data (a
	// racily clean one copied and smudged), the edited ones replaced,
	// inserted or left out, then the extensions. Nothing is copied that
	// does not change: the pieces go to the file as they are.
	var b pieces
	header := append([]byte(nil), data[:12]...)
	b.add(header)
	n := count
	// copyEntries adds entries from to to-1, smudging the racily clean
	// ones: their files may have changed in the same second the index
	// was written, so git is made to look at their content.
	copyEntries := func(from, to int) {
		for from < to {
			k := sort.SearchInts(racy, from)
			if k == len(racy) || racy[k] >= to {
				b.add(data[pos[from].off:pos[to-1].end])
				return
			}
			at := racy[k]
			b.add(data[pos[from].off:pos[at].off])
			e := append([]byte(nil), data[pos[at].off:pos[at].end]...)
			binary.BigEndian.PutUint32(e[36:], 0)
			b.add(e)
			from = at + 1
		}
	}
	next := 0
	for _, ed := range eds {
		copyEntries(next, ed.at)
		next = ed.after
		if ed.was {
			n--
		}
		if ed.remove {
			continue
		}
		n++
		e := make([]byte, (40+HashLen+2+len(ed.name)+8)&^7)
		binary.BigEndian.PutUint32(e[24:], ed.mode)
		copy(e[40:], ed.oid)
		nl := len(ed.name)
		if nl > 0xfff {
			nl = 0xfff
		}
		binary.BigEndian.PutUint16(e[40+HashLen:], uint16(nl))
		copy(e[40+HashLen+2:], ed.name)
		b.add(e)
	}
	copyEntries(next, len(pos))
	binary.BigEndian.PutUint32(header[8:12], uint32(n))
	var ext []byte
	if newTree != nil {
		ext = append(ext, "TREE"...)
		ext = binary.BigEndian.AppendUint32(ext, uint32(len(newTree)))
		ext = append(ext, newTree...)
	}
	if untrExt != nil {
		ext = append(ext, "UNTR"...)
		ext = binary.BigEndian.AppendUint32(ext, uint32(len(untrExt)))
		ext = append(ext, untrExt...)
	}
	b.add(ext)
	if len(b.list) > 256 {
		// Many racily clean entries: one piece (one write) instead.
		b = pieces{list: [][]byte{b.join()}, size: b.size}
	}
	if plain && newTree != nil && validRoot {
		tree = rootTree
	}
	return b.list, tree, plain, nil
}

// pieces are the bytes of a file in order, kept where they already are.
type pieces struct {
	list [][]byte
	size int
}

func (b *pieces) add(p []byte) {
	if len(p) > 0 {
		b.list = append(b.list, p)
		b.size += len(p)
	}
}

func (b *pieces) join() []byte {
	out := make([]byte, 0, b.size)
	for _, p := range b.list {
		out = append(out, p...)
	}
	return out
}

// indexSum is the trailing checksum of an index file made of pieces.
func (r *Store) indexSum(pieces [][]byte) []byte {
	h := r.indexHash()
	for _, p := range pieces {
		h.Write(p)
	}
	return h.Sum(nil)
}

// PrepareIndexEntries starts working out SetIndexEntries(entries, known)
// in the background, on the index this process last read or wrote (the
// operation log reads it before every command that changes it), so that
// the step itself only writes the file: the caller does it while its git
// processes run. Nothing is written here; SetIndexEntries, under
// index.lock, uses the result only when the index is still that file
// (the same identity and trailing checksum, as it would use the
// remembered bytes), with the same entries and known; otherwise it works
// everything out again.
func (r *Store) PrepareIndexEntries(ctx context.Context, entries []IndexEntry, known *KnownFolders) {
	if !r.fastOK() || len(entries) == 0 {
		return
	}
	path := r.IndexPath()
	indexMemo.Lock()
	if indexMemo.path != path || indexMemo.data == nil || indexMemo.id == (fileID{}) {
		indexMemo.Unlock()
		return
	}
	p := &indexPrep{path: path, id: indexMemo.id, data: indexMemo.data,
		entries: append([]IndexEntry(nil), entries...), known: known, done: make(chan struct{})}
	indexMemo.Unlock()
	prepared.Lock()
	prepared.p = p
	prepared.Unlock()
	go func() {
		defer close(p.done)
		// No git and no object reads here (gitOK false): the caller's
		// own run beside it.
		out, tree, plain, err := r.editIndexData(ctx, p.data.bytes(), p.id.Mtime/1e9, p.entries, p.known, false)
		if err != nil {
			return
		}
		p.out, p.tree, p.plain = append(out, r.indexSum(out)), tree, plain
	}()
}

// prepared is the edit PrepareIndexEntries started last.
var prepared struct {
	sync.Mutex
	p *indexPrep
}

type indexPrep struct {
	path    string
	id      fileID
	data    *indexData // the bytes it was worked out from
	entries []IndexEntry
	known   *KnownFolders
	done    chan struct{}
	out     [][]byte // the new file's pieces, its checksum last (nil: left to the step)
	tree    string
	plain   bool
}

// takePrepared returns the prepared edit of these entries on the file of
// identity id at path, once worked out (nil: none, or it failed).
func takePrepared(path string, id fileID, entries []IndexEntry, known *KnownFolders) *indexPrep {
	prepared.Lock()
	p := prepared.p
	if p == nil || p.path != path {
		prepared.Unlock()
		return nil // another repository's
	}
	prepared.p = nil
	prepared.Unlock()
	if p.id != id || p.known != known || !slices.Equal(p.entries, entries) {
		return nil
	}
	<-p.done
	if p.out == nil {
		return nil
	}
	return p
}

func (r *Store) indexHash() hash.Hash {
	if r.ObjectFormat == "sha256" {
		return sha256.New()
	}
	return sha1.New()
}

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
func parseCacheTree(data []byte, HashLen int) (*cacheTree, bool) {
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
			if len(data) < HashLen {
				return nil, false
			}
			n.oid = data[:HashLen:HashLen]
			data = data[HashLen:]
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
func (n *cacheTree) update(folders map[string]FolderEdit, delta map[string]int, HashLen int) bool {
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
		if err != nil || len(oid) != HashLen {
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

// indexMemo is the last user index this process read (ReadIndexFile) or
// wrote (editIndex), so that the next reader of the same file takes it
// from memory: the file must have the same identity and the same trailing
// checksum (a hash of all its bytes), read again each time.
var indexMemo struct {
	sync.Mutex
	path  string
	id    fileID
	data  *indexData
	tree  string
	plain bool
}

// indexData is an index file's bytes: as read, or as written, in the
// pieces editIndex wrote (runs of the file it edited, the new entries,
// the checksum last), joined only when someone asks for them whole.
type indexData struct {
	once   sync.Once
	pieces [][]byte
	size   int
	flat   []byte
}

func flatIndexData(b []byte) *indexData {
	return &indexData{pieces: [][]byte{b}, size: len(b)}
}

func (d *indexData) bytes() []byte {
	d.once.Do(func() {
		if len(d.pieces) == 1 {
			d.flat = d.pieces[0]
			return
		}
		b := pieces{list: d.pieces, size: d.size}
		d.flat = b.join()
	})
	return d.flat
}

// tail is the last n bytes (the checksum).
func (d *indexData) tail(n int) []byte {
	if last := d.pieces[len(d.pieces)-1]; len(last) >= n {
		return last[len(last)-n:]
	}
	b := d.bytes()
	return b[len(b)-n:]
}

func rememberIndex(path string, id fileID, data *indexData, tree string, plain bool) {
	indexMemo.Lock()
	defer indexMemo.Unlock()
	indexMemo.path, indexMemo.id, indexMemo.data, indexMemo.tree, indexMemo.plain = path, id, data, tree, plain
}

// recalledIndex returns the remembered index when f (open at path, of
// identity id) is the same file with the same checksum.
func (r *Store) recalledIndex(path string, f *os.File, id fileID) (data *indexData, tree string, plain, ok bool) {
	indexMemo.Lock()
	defer indexMemo.Unlock()
	n := r.HashLen()
	m := indexMemo.data
	if indexMemo.path != path || id == (fileID{}) || indexMemo.id != id || m == nil || m.size < n || int64(m.size) != id.Size {
		return nil, "", false, false
	}
	sum := make([]byte, n)
	if _, err := f.ReadAt(sum, id.Size-int64(n)); err != nil || !bytes.Equal(sum, m.tail(n)) || bytes.Equal(sum, make([]byte, n)) {
		return nil, "", false, false
	}
	return m, indexMemo.tree, indexMemo.plain, true
}

const hugePage = 2 << 20

// bigBuffer returns n zero bytes for a file about to be read whole (the
// user's index: 10 MB at 100,000 files). On Linux the part of it that
// covers whole 2 MB pages is asked for as huge pages: a fresh buffer
// otherwise costs a page fault per 4 KB, 2,500 for 10 MB, which on a
// loaded machine took longer than the read itself (a 10 MB index read
// into a fresh buffer, one process each: 10.6 ms median, 36.8 ms at the
// 90th percentile, against 7.3 and 17.9 ms with huge pages).
func bigBuffer(n int) []byte {
	b := make([]byte, n)
	if runtime.GOOS != "linux" || n < 2*hugePage {
		return b
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := int((hugePage - p%hugePage) % hugePage)
	end := n - int((p+uintptr(n))%hugePage)
	if end > start {
		const madvHugepage = 14                      // MADV_HUGEPAGE on Linux
		_ = unix.Madvise(b[start:end], madvHugepage) // only advice
	}
	return b
}

func fileIDOf(f *os.File) fileID {
	var s unix.Stat_t
	if unix.Fstat(int(f.Fd()), &s) != nil {
		return fileID{}
	}
	return idOfStat(&s)
}
