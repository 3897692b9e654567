package gitstore

// This file holds the tree encoder: a tree built from a base tree and
// edits path by path, written with one long-lived git process per kind of
// work instead of an index.

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// TreeEdit sets one path of a tree to a mode and object, or removes it
// (Mode "" or all zeros).
type TreeEdit struct {
	Path   string
	Mode   string
	Object string
}

func (e TreeEdit) removes() bool { return AbsentMode(e.Mode) }

// EditTree returns the tree that is base (a tree-ish such as
// "<commit>^{tree}", or "" for the empty tree) with edits applied, and the
// id of base itself. Only the folders on the edited paths are read (one
// cat-file --batch) and written (one mktree --batch); the rest of the tree
// is shared with base. A folder left empty disappears; a file replaces a
// folder of the same name and the other way round.
func (r *Store) EditTree(ctx context.Context, base string, edits []TreeEdit) (tree, baseTree string, err error) {
	ed, err := r.StartTreeEdit(ctx, base)
	if err != nil {
		return "", "", err
	}
	defer ed.Close()
	return ed.Apply(edits)
}

// FolderEdit is what an EditTree did to one folder on its edited paths:
// its tree in the base ("" when the base had no such folder) and after
// (Empty: it holds nothing, and its parent dropped it).
type FolderEdit struct {
	Base, Tree string
	Empty      bool
}

// EditTreeFolders is EditTree that also returns, by path ("" for the
// root), every folder on the edited paths as it was and as it became.
func (r *Store) EditTreeFolders(ctx context.Context, base string, edits []TreeEdit) (tree, baseTree string, folders map[string]FolderEdit, err error) {
	ed, err := r.StartTreeEdit(ctx, base)
	if err != nil {
		return "", "", nil, err
	}
	defer ed.Close()
	ed.b.folders = map[string]FolderEdit{}
	tree, baseTree, err = ed.Apply(edits)
	return tree, baseTree, ed.b.folders, err
}

// TreeEditor is an EditTree whose git processes were started ahead of
// time, so that their start-up overlaps other work.
type TreeEditor struct {
	b    *treeBuilder
	base string
	// preloaded is closed when the folders given to Preload are read.
	preloaded chan struct{}
	preErr    error
}

// StartTreeEdit starts the processes of an EditTree on base.
func (r *Store) StartTreeEdit(ctx context.Context, base string) (*TreeEditor, error) {
	b := &treeBuilder{r: r, ctx: ctx}
	var err error
	if base != "" && !r.fastOK() {
		// Else the folders are read in this process (readTreeHere), and
		// cat-file starts only if one cannot be.
		if b.cat, err = r.Git.StartProc(ctx, "cat-file", "--batch"); err != nil {
			return nil, err
		}
	}
	if b.objects = r.looseObjectDir(); b.objects == "" {
		if b.mk, err = r.Git.StartProc(ctx, "mktree", "-z", "--batch"); err != nil {
			b.close()
			return nil, err
		}
	}
	b.cache = map[string]cachedTree{}
	return &TreeEditor{b: b, base: base}, nil
}

// Preload starts reading, in the background, base's folders on the given
// paths, so that Apply finds them read (paths are those Apply's edits will
// touch; a folder missed here is read by Apply).
func (ed *TreeEditor) Preload(paths []string) {
	if ed.base == "" || ed.preloaded != nil {
		return
	}
	root := &editNode{baseRef: ed.base}
	for _, p := range paths {
		n := root
		for _, part := range strings.Split(p, "/") {
			if n.children == nil {
				n.children = map[string]*editNode{}
			}
			c := n.children[part]
			if c == nil {
				c = &editNode{}
				n.children[part] = c
			}
			n = c
		}
	}
	ed.preloaded = make(chan struct{})
	go func() {
		defer close(ed.preloaded)
		ed.preErr = ed.b.load(root)
	}()
}

// Close stops the processes (Apply does it too).
func (ed *TreeEditor) Close() error { return ed.b.close() }

// Apply writes base with edits applied (see EditTree); the editor is
// closed afterwards. The folders on the edited paths are read level by
// level (one round trip to cat-file per level), the new trees are computed
// here and sent to mktree in one stream, and mktree's ids are checked
// against the computed ones.
func (ed *TreeEditor) Apply(edits []TreeEdit) (tree, baseTree string, err error) {
	b := ed.b
	defer b.close()
	if ed.preloaded != nil {
		<-ed.preloaded
		if ed.preErr != nil {
			return "", "", ed.preErr
		}
	}
	root := &editNode{}
	for _, e := range edits {
		n := root
		for _, part := range strings.Split(e.Path, "/") {
			if n.children == nil {
				n.children = map[string]*editNode{}
			}
			c := n.children[part]
			if c == nil {
				c = &editNode{}
				n.children[part] = c
			}
			n = c
		}
		e := e
		n.edit = &e
	}
	baseTree = b.r.EmptyTree()
	root.baseRef = ed.base
	if err := b.load(root); err != nil {
		return "", "", err
	}
	if root.baseID != "" {
		baseTree = root.baseID
	}
	var out []builtTree
	tree, _, err = b.compute(root, "", &out)
	if err != nil {
		return "", "", err
	}
	if err := b.write(out); err != nil {
		return "", "", err
	}
	if err := b.close(); err != nil {
		return "", "", err
	}
	return tree, baseTree, nil
}

type editNode struct {
	children map[string]*editNode
	edit     *TreeEdit
	baseRef  string      // tree-ish of the folder in base, "" when none
	baseID   string      // its id, once read
	base     []treeEntry // its entries, once read
}

// isFolder reports whether the node stands for a folder of the result (a
// file set at the same name wins over removals below it).
func (n *editNode) isFolder() bool {
	return len(n.children) > 0 && (n.edit == nil || n.edit.removes())
}

type treeEntry struct {
	mode, name, oid string
}

type treeBuilder struct {
	r       *Store
	ctx     context.Context
	cat, mk Proc
	cache   map[string]cachedTree // folders read so far, by tree-ish
	// objects, when set, is the object folder the new trees are written
	// to directly (see looseObjectDir); otherwise mktree writes them.
	objects string
	// folders, when set, receives every folder compute works out, by
	// path (EditTreeFolders).
	folders map[string]FolderEdit
}

type cachedTree struct {
	id      string
	entries []treeEntry
}

// builtTree is a tree to write: its mktree input, its object body and
// the id computed here.
type builtTree struct {
	input []byte
	body  []byte
	id    string
}

func (b *treeBuilder) close() error {
	var errs []error
	if b.cat != nil {
		errs = append(errs, b.cat.Close())
		b.cat = nil
	}
	if b.mk != nil {
		errs = append(errs, b.mk.Close())
		b.mk = nil
	}
	return errors.Join(errs...)
}

// load reads the base folder of every folder node, one level at a time.
func (b *treeBuilder) load(root *editNode) error {
	level := []*editNode{root}
	for len(level) > 0 {
		var want []*editNode
		for _, n := range level {
			if n.baseRef == "" {
				continue
			}
			if c, ok := b.cache[n.baseRef]; ok {
				n.baseID, n.base = c.id, c.entries
				continue
			}
			want = append(want, n)
		}
		if len(want) > 0 && b.cat == nil {
			var rest []*editNode
			for _, n := range want {
				if id, entries, ok := b.readTreeHere(n.baseRef); ok {
					n.baseID, n.base = id, entries
					b.cache[n.baseRef] = cachedTree{id, entries}
				} else {
					rest = append(rest, n)
				}
			}
			if want = rest; len(want) > 0 {
				var err error
				if b.cat, err = b.r.Git.StartProc(b.ctx, "cat-file", "--batch"); err != nil {
					return err
				}
			}
		}
		if len(want) > 0 {
			var req bytes.Buffer
			for _, n := range want {
				req.WriteString(n.baseRef + "\n")
			}
			if _, err := b.cat.Stdin().Write(req.Bytes()); err != nil {
				return b.cat.Fail(err)
			}
			for _, n := range want {
				id, entries, err := b.readTreeReply(n.baseRef)
				if err != nil {
					return err
				}
				n.baseID, n.base = id, entries
				b.cache[n.baseRef] = cachedTree{id, entries}
			}
		}
		var next []*editNode
		for _, n := range level {
			byName := make(map[string]treeEntry, len(n.base))
			for _, e := range n.base {
				byName[e.name] = e
			}
			for name, c := range n.children {
				if !c.isFolder() {
					continue
				}
				if old, ok := byName[name]; ok && old.mode == ModeTree {
					c.baseRef = old.oid
				}
				next = append(next, c)
			}
		}
		level = next
	}
	return nil
}

// compute works out n's new tree (the folder at path dir), appending
// every tree that must be written to out (children before their parent);
// empty reports a tree with no entries (which a parent drops).
func (b *treeBuilder) compute(n *editNode, dir string, out *[]builtTree) (oid string, empty bool, err error) {
	byName := make(map[string]treeEntry, len(n.base))
	for _, e := range n.base {
		byName[e.name] = e
	}
	for name, c := range n.children {
		if !c.isFolder() {
			if c.edit == nil {
				continue
			}
			if c.edit.removes() {
				delete(byName, name)
			} else {
				byName[name] = treeEntry{mode: c.edit.Mode, name: name, oid: c.edit.Object}
			}
			continue
		}
		sub := name
		if dir != "" {
			sub = dir + "/" + name
		}
		id, subEmpty, err := b.compute(c, sub, out)
		if err != nil {
			return "", false, err
		}
		if subEmpty {
			delete(byName, name)
		} else {
			byName[name] = treeEntry{mode: ModeTree, name: name, oid: id}
		}
	}
	entries := make([]treeEntry, 0, len(byName))
	for _, e := range byName {
		entries = append(entries, e)
	}
	id, input, body, err := b.encode(entries)
	if err != nil {
		return "", false, err
	}
	if id != n.baseID {
		*out = append(*out, builtTree{input: input, body: body, id: id})
	}
	if b.folders != nil {
		b.folders[dir] = FolderEdit{Base: n.baseID, Tree: id, Empty: len(entries) == 0}
	}
	return id, len(entries) == 0, nil
}

// encode returns the id git gives the tree holding entries, the mktree
// input that writes it and the tree object's body.
func (b *treeBuilder) encode(entries []treeEntry) (string, []byte, []byte, error) {
	type keyed struct {
		mode uint64
		dir  bool
		e    treeEntry
	}
	ks := make([]keyed, 0, len(entries))
	for _, e := range entries {
		mode, err := strconv.ParseUint(e.mode, 8, 32)
		if err != nil {
			return "", nil, nil, fmt.Errorf("tree entry %q: bad mode %q", e.name, e.mode)
		}
		ks = append(ks, keyed{mode, mode == 0o40000, e})
	}
	// git orders a folder as if its name ended in "/".
	sort.Slice(ks, func(i, j int) bool {
		return treeNameLess(ks[i].e.name, ks[i].dir, ks[j].e.name, ks[j].dir)
	})
	hashLen := b.r.HashLen()
	obj := make([]byte, 0, len(ks)*(hashLen+24))
	input := make([]byte, 0, len(ks)*(2*hashLen+32)+1)
	raw := make([]byte, hashLen)
	for _, k := range ks {
		if len(k.e.oid) != 2*hashLen {
			return "", nil, nil, fmt.Errorf("tree entry %q: bad object id %q", k.e.name, k.e.oid)
		}
		if _, err := hex.Decode(raw, []byte(k.e.oid)); err != nil {
			return "", nil, nil, fmt.Errorf("tree entry %q: bad object id %q", k.e.name, k.e.oid)
		}
		obj = strconv.AppendUint(obj, k.mode, 8)
		obj = append(obj, ' ')
		obj = append(obj, k.e.name...)
		obj = append(obj, 0)
		obj = append(obj, raw...)
		typ := "blob"
		switch k.mode {
		case 0o40000:
			typ = "tree"
		case 0o160000:
			typ = "commit"
		}
		input = strconv.AppendUint(input, k.mode, 8)
		input = append(input, ' ')
		input = append(input, typ...)
		input = append(input, ' ')
		input = append(input, k.e.oid...)
		input = append(input, '\t')
		input = append(input, k.e.name...)
		input = append(input, 0)
	}
	input = append(input, 0)
	return b.r.ObjectID("tree", obj), input, obj, nil
}

// treeNameLess is git's order of tree entries: by name, a folder's name
// compared as if it ended in "/".
func treeNameLess(a string, aDir bool, b string, bDir bool) bool {
	n := min(len(a), len(b))
	if c := strings.Compare(a[:n], b[:n]); c != 0 {
		return c < 0
	}
	next := func(s string, dir bool) int {
		if len(s) > n {
			return int(s[n])
		}
		if dir {
			return '/'
		}
		return 0
	}
	return next(a, aDir) < next(b, bDir)
}

// write sends every tree to mktree in one stream and checks the ids it
// answers with.
func (b *treeBuilder) write(trees []builtTree) error {
	if len(trees) == 0 {
		return nil
	}
	if b.objects != "" {
		// Written here: mktree would look up the type of every entry
		// (one loose-object read each for freshly hashed files).
		ids, bodies := make([]string, len(trees)), make([][]byte, len(trees))
		for i, t := range trees {
			ids[i], bodies[i] = t.id, t.body
		}
		return writeLooseObjects(b.objects, "tree", ids, bodies)
	}
	errc := make(chan error, 1)
	go func() {
		for _, t := range trees {
			if _, err := b.mk.Stdin().Write(t.input); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	for _, t := range trees {
		line, err := b.mk.Stdout().ReadString('\n')
		if err != nil {
			<-errc
			return b.mk.Fail(err)
		}
		if got := strings.TrimSpace(line); got != t.id {
			<-errc
			return fmt.Errorf("git mktree wrote tree %s where %s was expected", got, t.id)
		}
	}
	if err := <-errc; err != nil {
		return b.mk.Fail(err)
	}
	return nil
}

// readTreeHere reads the tree ref names (a tree's id, or "<commit>^{tree}")
// in this process; ok is false when it cannot, and cat-file is asked.
func (b *treeBuilder) readTreeHere(ref string) (string, []treeEntry, bool) {
	id := ref
	if c, ok := strings.CutSuffix(ref, "^{tree}"); ok {
		typ, data, ok := b.r.ReadObjectHere(c)
		if !ok || typ != "commit" {
			return "", nil, false
		}
		line, _, _ := bytes.Cut(data, []byte("\n"))
		t, ok := bytes.CutPrefix(line, []byte("tree "))
		if !ok {
			return "", nil, false
		}
		id = string(t)
	}
	typ, data, ok := b.r.ReadObjectHere(id)
	if !ok || typ != "tree" {
		return "", nil, false
	}
	entries, err := parseTree(data, b.r.HashLen())
	if err != nil {
		return "", nil, false
	}
	return id, entries, true
}

// readTreeReply reads cat-file's answer for one requested tree-ish.
func (b *treeBuilder) readTreeReply(treeish string) (string, []treeEntry, error) {
	header, err := b.cat.Stdout().ReadString('\n')
	if err != nil {
		return "", nil, b.cat.Fail(err)
	}
	f := strings.Fields(header)
	if len(f) != 3 || f[1] != "tree" {
		return "", nil, fmt.Errorf("git cat-file: %s is not a tree (%s)", treeish, strings.TrimSpace(header))
	}
	size, err := strconv.Atoi(f[2])
	if err != nil {
		return "", nil, fmt.Errorf("git cat-file: bad header %q", header)
	}
	data := make([]byte, size+1)
	if _, err := io.ReadFull(b.cat.Stdout(), data); err != nil {
		return "", nil, b.cat.Fail(err)
	}
	entries, err := parseTree(data[:size], b.r.HashLen())
	return f[0], entries, err
}

// parseTree decodes a binary tree object: "<mode> <name>\0<raw id>"...
func parseTree(data []byte, hashLen int) ([]treeEntry, error) {
	return parseTreeEntries(data, hashLen, hex.EncodeToString)
}

// parseTreeEntries decodes a binary tree object, each raw id given to id;
// the common modes are not copied.
func parseTreeEntries(data []byte, hashLen int, id func([]byte) string) ([]treeEntry, error) {
	out := make([]treeEntry, 0, 64)
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			return nil, errors.New("corrupt tree object")
		}
		nul := bytes.IndexByte(data[sp:], 0)
		if nul < 0 || sp+nul+1+hashLen > len(data) {
			return nil, errors.New("corrupt tree object")
		}
		nul += sp
		var mode string
		switch m := data[:sp]; string(m) { // no copy: compared only
		case "100644":
			mode = "100644"
		case "40000":
			mode = "40000"
		case "100755":
			mode = "100755"
		default:
			mode = string(m)
		}
		out = append(out, treeEntry{
			mode: mode,
			name: string(data[sp+1 : nul]),
			oid:  id(data[nul+1 : nul+1+hashLen]),
		})
		data = data[nul+1+hashLen:]
	}
	return out, nil
}

// TreeEntriesHere is TreeEntriesAt read in this process (the folders on the
// paths, each once); ok is false when git should answer.
func (r *Store) TreeEntriesHere(treeish string, paths []string) ([]IndexEntry, bool) {
	if !r.fastOK() {
		return nil, false
	}
	b := &treeBuilder{r: r}
	_, root, ok := b.readTreeHere(treeish)
	if !ok {
		return nil, false
	}
	folders := map[string][]treeEntry{"": root}
	// folder returns the entries of folder dir ("" the root), nil when
	// there is no such folder; ok is false when it cannot be read here.
	var folder func(dir string) ([]treeEntry, bool)
	folder = func(dir string) ([]treeEntry, bool) {
		if es, seen := folders[dir]; seen {
			return es, true
		}
		parent, name := "", dir
		if i := strings.LastIndexByte(dir, '/'); i >= 0 {
			parent, name = dir[:i], dir[i+1:]
		}
		up, ok := folder(parent)
		if !ok {
			return nil, false
		}
		var es []treeEntry
		for _, e := range up {
			if e.name == name && e.mode == "40000" {
				_, got, ok := b.readTreeHere(e.oid)
				if !ok {
					return nil, false
				}
				es = got
				break
			}
		}
		folders[dir] = es
		return es, true
	}
	out := make([]IndexEntry, len(paths))
	for i, p := range paths {
		out[i] = IndexEntry{Path: p}
		dir, name := "", p
		if j := strings.LastIndexByte(p, '/'); j >= 0 {
			dir, name = p[:j], p[j+1:]
		}
		es, ok := folder(dir)
		if !ok {
			return nil, false
		}
		for _, e := range es {
			if e.name == name && e.mode != "40000" {
				out[i].Mode, out[i].Blob = e.mode, e.oid
				break
			}
		}
	}
	return out, true
}
