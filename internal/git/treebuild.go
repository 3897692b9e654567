package git

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strings"
)

// TreeEdit sets one path of a tree to a mode and object, or removes it
// (Mode "" or all zeros).
type TreeEdit struct {
	Path   string
	Mode   string
	Object string
}

func (e TreeEdit) removes() bool { return strings.Trim(e.Mode, "0") == "" }

// EditTree returns the tree that is base (a tree-ish such as
// "<commit>^{tree}", or "" for the empty tree) with edits applied, and the
// id of base itself. Only the folders on the edited paths are read (one
// cat-file --batch) and written (one mktree --batch); the rest of the tree
// is shared with base. A folder left empty disappears; a file replaces a
// folder of the same name and the other way round.
func (r *Repo) EditTree(ctx context.Context, base string, edits []TreeEdit) (tree, baseTree string, err error) {
	ed, err := r.StartTreeEdit(ctx, base)
	if err != nil {
		return "", "", err
	}
	defer ed.Close()
	return ed.Apply(edits)
}

// TreeEditor is an EditTree whose git processes were started ahead of
// time, so that their start-up overlaps other work.
type TreeEditor struct {
	b    *treeBuilder
	base string
}

// StartTreeEdit starts the processes of an EditTree on base.
func (r *Repo) StartTreeEdit(ctx context.Context, base string) (*TreeEditor, error) {
	b := &treeBuilder{r: r, ctx: ctx}
	var err error
	if base != "" {
		if b.cat, err = r.startProc(ctx, "cat-file", "--batch"); err != nil {
			return nil, err
		}
	}
	if b.mk, err = r.startProc(ctx, "mktree", "-z", "--batch"); err != nil {
		b.close()
		return nil, err
	}
	return &TreeEditor{b: b, base: base}, nil
}

// Close stops the processes (Apply does it too).
func (ed *TreeEditor) Close() error { return ed.b.close() }

// Apply writes base with edits applied (see EditTree); the editor is
// closed afterwards.
func (ed *TreeEditor) Apply(edits []TreeEdit) (tree, baseTree string, err error) {
	b := ed.b
	defer b.close()
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
	var entries []treeEntry
	if ed.base != "" {
		if baseTree, entries, err = b.readTree(ed.base); err != nil {
			return "", "", err
		}
	}
	tree, _, err = b.build(entries, root)
	if err != nil {
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
}

type treeEntry struct {
	mode, name, oid string
}

type treeBuilder struct {
	r       *Repo
	ctx     context.Context
	cat, mk *proc
}

func (b *treeBuilder) close() error {
	var errs []error
	if b.cat != nil {
		errs = append(errs, b.cat.close())
		b.cat = nil
	}
	if b.mk != nil {
		errs = append(errs, b.mk.close())
		b.mk = nil
	}
	return errors.Join(errs...)
}

// build writes the tree that is entries with n's edits applied; empty
// reports a tree with no entries (which a parent drops).
func (b *treeBuilder) build(entries []treeEntry, n *editNode) (oid string, empty bool, err error) {
	byName := make(map[string]treeEntry, len(entries))
	for _, e := range entries {
		byName[e.name] = e
	}
	names := make([]string, 0, len(n.children))
	for name := range n.children {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c := n.children[name]
		// A file set here wins over edits below the same name (which can
		// only be removals of what was a folder).
		if len(c.children) == 0 || (c.edit != nil && !c.edit.removes()) {
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
		// A folder on an edited path: start from base's folder, if base
		// has a folder there (a file of that name is replaced).
		var sub []treeEntry
		if old, ok := byName[name]; ok && old.mode == "40000" {
			if _, sub, err = b.readTree(old.oid); err != nil {
				return "", false, err
			}
		}
		id, subEmpty, err := b.build(sub, c)
		if err != nil {
			return "", false, err
		}
		if subEmpty {
			delete(byName, name)
		} else {
			byName[name] = treeEntry{mode: "40000", name: name, oid: id}
		}
	}
	var in bytes.Buffer
	for _, e := range byName {
		typ := "blob"
		switch e.mode {
		case "40000", "040000":
			typ = "tree"
		case "160000":
			typ = "commit"
		}
		fmt.Fprintf(&in, "%s %s %s\t%s\x00", e.mode, typ, e.oid, e.name)
	}
	in.WriteByte(0)
	if _, err := b.mk.in.Write(in.Bytes()); err != nil {
		return "", false, b.mk.fail(err)
	}
	line, err := b.mk.out.ReadString('\n')
	if err != nil {
		return "", false, b.mk.fail(err)
	}
	return strings.TrimSpace(line), len(byName) == 0, nil
}

// readTree reads a tree (any tree-ish cat-file understands) and returns its
// id and entries.
func (b *treeBuilder) readTree(treeish string) (string, []treeEntry, error) {
	if _, err := fmt.Fprintf(b.cat.in, "%s\n", treeish); err != nil {
		return "", nil, b.cat.fail(err)
	}
	header, err := b.cat.out.ReadString('\n')
	if err != nil {
		return "", nil, b.cat.fail(err)
	}
	f := strings.Fields(header)
	if len(f) != 3 || f[1] != "tree" {
		return "", nil, fmt.Errorf("git cat-file: %s is not a tree (%s)", treeish, strings.TrimSpace(header))
	}
	var size int
	if _, err := fmt.Sscanf(f[2], "%d", &size); err != nil {
		return "", nil, fmt.Errorf("git cat-file: bad header %q", header)
	}
	data := make([]byte, size+1)
	if _, err := io.ReadFull(b.cat.out, data); err != nil {
		return "", nil, b.cat.fail(err)
	}
	entries, err := parseTree(data[:size], b.r.hashLen())
	return f[0], entries, err
}

func (r *Repo) hashLen() int {
	if r.ObjectFormat == "sha256" {
		return 32
	}
	return 20
}

// parseTree decodes a binary tree object: "<mode> <name>\0<raw id>"...
func parseTree(data []byte, hashLen int) ([]treeEntry, error) {
	var out []treeEntry
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
		out = append(out, treeEntry{
			mode: string(data[:sp]),
			name: string(data[sp+1 : nul]),
			oid:  fmt.Sprintf("%x", data[nul+1:nul+1+hashLen]),
		})
		data = data[nul+1+hashLen:]
	}
	return out, nil
}

// proc is a long-lived git child spoken to through pipes.
type proc struct {
	args   []string
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
	done   bool
}

func (r *Repo) startProc(ctx context.Context, args ...string) (*proc, error) {
	p := &proc{args: args}
	p.cmd = exec.CommandContext(ctx, "git", append(append([]string{}, globalArgs...), args...)...)
	p.cmd.Env = r.env()
	p.cmd.Dir = r.WorkTree
	p.cmd.Stderr = &p.stderr
	var err error
	if p.in, err = p.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p.out = bufio.NewReaderSize(out, 64<<10)
	if err := p.cmd.Start(); err != nil {
		return nil, &Error{Args: args, ExitCode: -1, Err: err}
	}
	return p, nil
}

// close ends the child's input and waits for it.
func (p *proc) close() error {
	if p.done {
		return nil
	}
	p.done = true
	p.in.Close()
	_, _ = io.Copy(io.Discard, p.out)
	if err := p.cmd.Wait(); err != nil {
		return p.wrap(err)
	}
	return nil
}

// fail turns a pipe error into git's own complaint when it has one.
func (p *proc) fail(err error) error {
	if p.done {
		return p.wrap(err)
	}
	p.done = true
	p.in.Close()
	if werr := p.cmd.Wait(); werr != nil {
		return p.wrap(werr)
	}
	return p.wrap(err)
}

func (p *proc) wrap(err error) error {
	code := -1
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	return &Error{Args: p.args, ExitCode: code, Stderr: p.stderr.String(), Err: err}
}
