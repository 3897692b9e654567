package gitindex

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
	"github.com/nudgethis/git-nudge/internal/gitstore"
	"hash"
	"io"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"
)

// KnownFolders is what the caller already knows of the trees: EditTreeFolders
// of Base with edits equal to the entries being set. When the index's own
// tree is Base, the index's cache-tree is brought up to date from it
// without reading any tree again.
type KnownFolders struct {
	Base    string
	Folders map[string]gitstore.FolderEdit
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
func (r *Files) SetIndexEntries(ctx context.Context, entries []gitstore.IndexEntry, known *KnownFolders) error {
	done, err := r.editIndex(ctx, entries, known)
	if done || err != nil {
		return err
	}
	return r.Git.UpdateIndexEntries(ctx, gitstore.Index{}, entries)
}

// errIndexFallback says the index holds something editIndex leaves to git.
var errIndexFallback = errors.New("index left to git")

// editIndex is SetIndexEntries in this process; done is false (and
// nothing changed) when git must do it.
func (r *Files) editIndex(ctx context.Context, entries []gitstore.IndexEntry, known *KnownFolders) (done bool, err error) {
	if !r.InProcess() || len(entries) == 0 {
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
	id := gitstore.FileIDOf(src)
	if id == (gitstore.FileID{}) {
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
	if nid, ok := gitstore.IDOfPath(path); ok {
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
func (r *Files) editIndexData(ctx context.Context, data []byte, indexMtime int64, entries []gitstore.IndexEntry, known *KnownFolders, gitOK bool) (out [][]byte, tree string, plain bool, err error) {
	hashLen := r.HashLen()
	ix, err := scanIndex(data, hashLen, indexMtime)
	if err != nil {
		return nil, "", false, err
	}
	eds, err := ix.plan(entries)
	if err != nil {
		return nil, "", false, err
	}
	var newTree []byte
	var validRoot bool
	var rootTree string
	if ix.treeExt != nil {
		if newTree, rootTree, validRoot, err = r.editedCacheTree(ctx, ix, eds, known, gitOK); err != nil {
			return nil, "", false, err
		}
	}
	b := ix.write(eds, newTree)
	if ix.plain && newTree != nil && validRoot {
		tree = rootTree
	}
	return b.list, tree, ix.plain, nil
}

// scannedIndex is an index file's data as editIndexData reads it: where
// each entry is, which are racily clean, and the extensions it keeps.
type scannedIndex struct {
	data    []byte
	hashLen int
	end     int // where the trailing checksum starts
	count   int
	pos     []indexPos
	plain   bool  // no conflict, flagged entry or folder entry (see IndexFile)
	racy    []int // entries as recent as the index file
	treeExt []byte
	untrExt []byte
}

// scanIndex checks data's structure the way git parses an index and
// finds its entries and extensions; errIndexFallback for anything left to
// git. The file's checksum is not checked, as git does not check it when
// it reads an index (only fsck does).
func scanIndex(data []byte, hashLen int, indexMtime int64) (*scannedIndex, error) {
	if len(data) < 12+hashLen || len(data) >= 1<<31 || string(data[:4]) != "DIRC" {
		return nil, errIndexFallback
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version != 2 && version != 3 {
		return nil, errIndexFallback
	}
	end := len(data) - hashLen
	if bytes.Equal(data[end:], make([]byte, hashLen)) {
		return nil, errIndexFallback // index.skipHash: left to git
	}
	ix := &scannedIndex{data: data, hashLen: hashLen, end: end, plain: true}
	ix.count = int(binary.BigEndian.Uint32(data[8:12]))
	ix.pos = make([]indexPos, 0, ix.count)
	off := 12
	for i := 0; i < ix.count; i++ {
		fixed := 40 + hashLen + 2
		if off+fixed > end {
			return nil, errIndexFallback
		}
		flags := binary.BigEndian.Uint16(data[off+40+hashLen:])
		mode := binary.BigEndian.Uint32(data[off+24:])
		p := indexPos{off: int32(off), stage: uint8(flags>>12) & 3, flagged: flags&0x8000 != 0}
		if flags&0x4000 != 0 {
			if version < 3 {
				return nil, errIndexFallback
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
			return nil, errIndexFallback
		}
		p.name, p.nameEnd = int32(off+fixed), int32(off+fixed+nul)
		p.end = int32(off + (fixed+nul+8)&^7)
		if int(p.end) > end {
			return nil, errIndexFallback
		}
		if p.flagged || p.stage != 0 || mode&0o170000 == 0o040000 {
			ix.plain = false
		}
		if int64(binary.BigEndian.Uint32(data[off+8:])) >= indexMtime {
			ix.racy = append(ix.racy, len(ix.pos))
		}
		ix.pos = append(ix.pos, p)
		off = int(p.end)
	}
	// Extensions: the cache-tree is kept up to date; the untracked cache
	// is kept as it is when only tracked files change (git invalidates it
	// for an added or removed path: that is left to git); the two that
	// only help git read faster (EOIE, IEOT) are dropped; any other is
	// left to git (split index, fsmonitor, resolve-undo, sparse index).
	for off+8 <= end {
		sig := string(data[off : off+4])
		size := int(binary.BigEndian.Uint32(data[off+4:]))
		body := off + 8
		if size < 0 || body+size > end {
			return nil, errIndexFallback
		}
		switch sig {
		case "TREE":
			ix.treeExt = data[body : body+size]
		case "UNTR":
			ix.untrExt = data[body : body+size]
		case "EOIE", "IEOT":
		default:
			return nil, errIndexFallback
		}
		off = body + size
	}
	if off != end {
		return nil, errIndexFallback
	}
	return ix, nil
}

// indexEdit is one entry to set or remove, placed in the index.
type indexEdit struct {
	name      string
	mode      uint32
	oid       []byte
	remove    bool
	was       bool // a stage-0 entry was there
	at, after int  // the range of pos with this name
}

// nameOf is the name of entry i.
func (ix *scannedIndex) nameOf(i int) []byte {
	return ix.data[ix.pos[i].name:ix.pos[i].nameEnd]
}

// find is the first entry whose name is name or sorts after it.
func (ix *scannedIndex) find(name string) int {
	return sort.Search(len(ix.pos), func(i int) bool { return string(ix.nameOf(i)) >= name })
}

// plan turns entries into edits in index order (by name), each placed
// among ix's entries; errIndexFallback for what git should do: a path
// given twice, a mode git would not write, a conflict or flagged entry at
// the path, a file in the way of a folder (or the other way round), an
// added or removed path with an untracked cache.
func (ix *scannedIndex) plan(entries []gitstore.IndexEntry) ([]indexEdit, error) {
	eds := make([]indexEdit, 0, len(entries))
	seen := map[string]bool{}
	for _, e := range entries {
		if seen[e.Path] || e.Path == "" {
			return nil, errIndexFallback
		}
		seen[e.Path] = true
		ed := indexEdit{name: e.Path, remove: e.Mode == "" || e.Mode == "0" || e.Blob == ""}
		if !ed.remove {
			m, err := strconv.ParseUint(e.Mode, 8, 32)
			if err != nil {
				return nil, errIndexFallback
			}
			switch m {
			case 0o100644, 0o100755, 0o120000, 0o160000:
			default:
				return nil, errIndexFallback
			}
			oid, err := hex.DecodeString(e.Blob)
			if err != nil || len(oid) != ix.hashLen {
				return nil, errIndexFallback
			}
			ed.mode, ed.oid = uint32(m), oid
		}
		eds = append(eds, ed)
	}
	sort.Slice(eds, func(i, j int) bool { return eds[i].name < eds[j].name })
	for i := range eds {
		ed := &eds[i]
		ed.at = ix.find(ed.name)
		ed.after = ed.at
		for ed.after < len(ix.pos) && string(ix.nameOf(ed.after)) == ed.name {
			if ix.pos[ed.after].stage != 0 || ix.pos[ed.after].flagged {
				return nil, errIndexFallback // a conflict, or an entry git flags
			}
			ed.was = true
			ed.after++
		}
		// A file in the way of a folder, or the other way round: git
		// replaces the other entries, which is left to it.
		if k := ix.find(ed.name + "/"); k < len(ix.pos) && bytes.HasPrefix(ix.nameOf(k), []byte(ed.name+"/")) {
			return nil, errIndexFallback
		}
		if ix.untrExt != nil && (ed.remove || !ed.was) {
			return nil, errIndexFallback
		}
		for d := ed.name; ; {
			slash := strings.LastIndexByte(d, '/')
			if slash < 0 {
				break
			}
			d = d[:slash]
			if k := ix.find(d); k < len(ix.pos) && string(ix.nameOf(k)) == d {
				return nil, errIndexFallback
			}
		}
	}
	return eds, nil
}

// editedCacheTree is ix's cache-tree after eds: brought up to date along
// the edited paths when it was valid and the caller (or one tree read)
// says what the folders became (valid is then true); else invalidated
// along them, as git does. rootTree is the root's id as the result holds
// it.
func (r *Files) editedCacheTree(ctx context.Context, ix *scannedIndex, eds []indexEdit, known *KnownFolders, gitOK bool) (newTree []byte, rootTree string, valid bool, err error) {
	newCount := ix.count
	delta := map[string]int{}
	for _, ed := range eds {
		d := 0
		if ed.was {
			d--
		}
		if !ed.remove {
			d++
		}
		newCount += d
		delta[""] += d
		for i := 0; i < len(ed.name); i++ {
			if ed.name[i] == '/' {
				delta[ed.name[:i]] += d
			}
		}
	}
	root, ok := parseCacheTree(ix.treeExt, ix.hashLen)
	if !ok {
		return nil, "", false, errIndexFallback
	}
	updated := false
	if ix.plain && root.count == ix.count {
		base := hex.EncodeToString(root.oid)
		var folders map[string]gitstore.FolderEdit
		if known != nil && known.Base == base {
			folders = known.Folders
		} else if !gitOK {
			return nil, "", false, errIndexFallback
		} else if r.HasObjectHere(base) {
			edits := make([]gitstore.TreeEdit, len(eds))
			for i, ed := range eds {
				edits[i] = gitstore.TreeEdit{Path: ed.name}
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
			updated = root.update(folders, delta, ix.hashLen) && root.count == newCount
		}
		if !updated {
			root, _ = parseCacheTree(ix.treeExt, ix.hashLen) // as read: update may have changed it
		}
	}
	if !updated {
		for _, ed := range eds {
			root.invalidate(ed.name)
		}
	}
	return root.encode(nil), hex.EncodeToString(root.oid), updated, nil
}

// write is the new file, in pieces: runs of entries as they are in data
// (a racily clean one copied and smudged), the edited ones replaced,
// inserted or left out, then the extensions (newTree for the cache-tree
// when not nil). Nothing is copied that does not change: the pieces go to
// the file as they are.
func (ix *scannedIndex) write(eds []indexEdit, newTree []byte) pieces {
	data, pos, hashLen := ix.data, ix.pos, ix.hashLen
	var b pieces
	header := append([]byte(nil), data[:12]...)
	b.add(header)
	n := ix.count
	// copyEntries adds entries from to to-1, smudging the racily clean
	// ones: their files may have changed in the same second the index
	// was written, so git is made to look at their content.
	copyEntries := func(from, to int) {
		for from < to {
			k := sort.SearchInts(ix.racy, from)
			if k == len(ix.racy) || ix.racy[k] >= to {
				b.add(data[pos[from].off:pos[to-1].end])
				return
			}
			at := ix.racy[k]
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
		e := make([]byte, (40+hashLen+2+len(ed.name)+8)&^7)
		binary.BigEndian.PutUint32(e[24:], ed.mode)
		copy(e[40:], ed.oid)
		nl := len(ed.name)
		if nl > 0xfff {
			nl = 0xfff
		}
		binary.BigEndian.PutUint16(e[40+hashLen:], uint16(nl))
		copy(e[40+hashLen+2:], ed.name)
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
	if ix.untrExt != nil {
		ext = append(ext, "UNTR"...)
		ext = binary.BigEndian.AppendUint32(ext, uint32(len(ix.untrExt)))
		ext = append(ext, ix.untrExt...)
	}
	b.add(ext)
	if len(b.list) > 256 {
		// Many racily clean entries: one piece (one write) instead.
		b = pieces{list: [][]byte{b.join()}, size: b.size}
	}
	return b
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
func (r *Files) indexSum(pieces [][]byte) []byte {
	h := r.indexHash()
	for _, p := range pieces {
		h.Write(p)
	}
	return h.Sum(nil)
}

func (r *Files) indexHash() hash.Hash {
	if r.ObjectFormat == "sha256" {
		return sha256.New()
	}
	return sha1.New()
}

// IndexHash is the hash of the repository's object format, which an index
// file's trailing checksum uses.
func (r *Files) IndexHash() hash.Hash { return r.indexHash() }
