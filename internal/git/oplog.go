package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// This file holds what the operation log (internal/oplog) needs from git:
// blobs written from memory, a chain of log commits read in one process,
// the user's index as raw bytes, and HEAD set back to a branch or commit.

// WriteBlobsData stores each of data as a blob (no filters) with one git
// process, and returns their ids in order.
func (r *Repo) WriteBlobsData(ctx context.Context, data [][]byte) ([]string, error) {
	return r.WriteObjects(ctx, "blob", data)
}

func (r *Repo) writeBlobsData(ctx context.Context, data [][]byte) ([]string, error) {
	if len(data) == 0 {
		return nil, nil
	}
	dir, err := os.MkdirTemp(r.GitDir, "nudgethis-op-blobs-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	paths := make([]string, len(data))
	for i, d := range data {
		paths[i] = filepath.Join(dir, fmt.Sprint(i))
		if err := os.WriteFile(paths[i], d, 0o600); err != nil {
			return nil, err
		}
	}
	return r.HashFilesRaw(ctx, paths, true)
}

// BlobTree writes a tree holding each blob once (entries named by their
// ids) and returns its id: it keeps those blobs reachable.
func (r *Repo) BlobTree(ctx context.Context, blobs, trees []string) (string, error) {
	var in bytes.Buffer
	seen := map[string]bool{}
	var entries [][2]string
	for _, t := range trees {
		if t == "" || seen[t] || !r.validID(t) {
			continue
		}
		seen[t] = true
		fmt.Fprintf(&in, "040000 tree %s\t%s\n", t, t)
		entries = append(entries, [2]string{ModeTree, t})
	}
	for _, b := range blobs {
		if b == "" || seen[b] {
			continue
		}
		if !r.validID(b) {
			return "", fmt.Errorf("not an object id: %q", b)
		}
		seen[b] = true
		fmt.Fprintf(&in, "100644 blob %s\t%s\n", b, b)
		entries = append(entries, [2]string{ModeFile, b})
	}
	if r.fastOK() {
		// Every entry was written by the caller or checked to exist (an
		// index's cache-tree), but the empty tree, which git only
		// pretends to have: it is written here.
		if seen[r.EmptyTree()] {
			if _, err := r.writeObject("tree", nil); err != nil {
				return "", err
			}
		}
		return r.writeIDTree(entries)
	}
	// mktree writes the empty tree too (a SHA-256 repository may not
	// have it yet).
	out, err := r.run(ctx, cmd{args: []string{"mktree"}, stdin: &in})
	return strings.TrimSpace(string(out)), err
}

// ChainCommit is one commit of a first-parent chain: its id, its tree, its
// parents and its message.
type ChainCommit struct {
	ID, Tree string
	Parents  []string
	Message  string
}

// ReadChain lists the first-parent chain from ref, newest first, in one
// git process. A missing ref is an empty chain.
func (r *Repo) ReadChain(ctx context.Context, ref string) ([]ChainCommit, error) {
	if _, ok, err := r.ReadRef(ctx, ref); err != nil || !ok {
		return nil, err
	}
	out, err := r.git(ctx, "log", "--first-parent", "--no-show-signature", "--format=%H %T %P%x01%B%x02", "--end-of-options", ref, "--")
	if err != nil {
		return nil, err
	}
	var cs []ChainCommit
	for _, rec := range strings.Split(string(out), "\x02") {
		rec = strings.TrimLeft(rec, "\n")
		if rec == "" {
			continue
		}
		head, msg, ok := strings.Cut(rec, "\x01")
		f := strings.Fields(head)
		if !ok || len(f) < 2 {
			return nil, fmt.Errorf("git log of %s: unexpected record %q", ref, head)
		}
		cs = append(cs, ChainCommit{ID: f[0], Tree: f[1], Parents: f[2:], Message: strings.TrimRight(msg, "\n")})
	}
	return cs, nil
}

// ObjectType returns the type of object id ("commit", "blob", ...).
func (r *Repo) ObjectType(ctx context.Context, id string) (string, error) {
	return r.line(ctx, "cat-file", "-t", id)
}

// RefsUnder lists refs under every prefix in one git process.
func (r *Repo) RefsUnder(ctx context.Context, prefixes ...string) (map[string]string, error) {
	args := append([]string{"for-each-ref", "--format=%(objectname) %(refname)", "--"}, prefixes...)
	out, err := r.git(ctx, args...)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if obj, name, ok := strings.Cut(l, " "); ok {
			m[name] = obj
		}
	}
	return m, nil
}

// HeadTarget is HEAD as one string: "ref: <branch>" when it names a
// branch, the commit id when detached.
func (r *Repo) HeadTarget(ctx context.Context) (string, error) {
	h, err := r.Head(ctx)
	if err != nil {
		return "", err
	}
	if h.Branch != "" {
		return "ref: " + h.Branch, nil
	}
	return h.Commit, nil
}

// HeadTargetKnowing is HeadTarget with the branches already read (refs by
// full name): a HEAD on a branch costs one git process.
func (r *Repo) HeadTargetKnowing(ctx context.Context, refs map[string]string) (string, error) {
	br, err := r.headBranch(ctx)
	if err != nil {
		return "", err
	}
	if br != "" {
		return "ref: " + br, nil
	}
	return r.headCommit(ctx)
}

// SetHeadTarget points HEAD at target ("ref: <branch>" or a commit id),
// without touching the index or the work tree.
func (r *Repo) SetHeadTarget(ctx context.Context, target string) error {
	if b, ok := strings.CutPrefix(target, "ref: "); ok {
		_, err := r.git(ctx, "symbolic-ref", "HEAD", b)
		return err
	}
	if !r.validID(target) {
		return fmt.Errorf("not a commit id for HEAD: %q", target)
	}
	_, err := r.git(ctx, "update-ref", "--no-deref", "HEAD", target)
	return err
}

// ReadIndexBytes returns the user's index file as it is (nil when there is
// none).
func (r *Repo) ReadIndexBytes() ([]byte, error) {
	b, err := os.ReadFile(r.IndexPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// WriteIndexBytes replaces the user's index with data the way git does:
// under index.lock (created exclusively), fsynced, renamed into place.
// nil data removes the index.
func (r *Repo) WriteIndexBytes(data []byte) error {
	lock := r.IndexPath() + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return ErrIndexLocked
		}
		return err
	}
	if data == nil {
		f.Close()
		os.Remove(lock)
		if err := os.Remove(r.IndexPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(lock, r.IndexPath())
	}
	if werr != nil {
		os.Remove(lock)
	}
	return werr
}

// IndexBytesTree writes the tree of an index given as bytes (through a
// private index file in the git dir) so that every object its entries
// name stays reachable from that tree.
func (r *Repo) IndexBytesTree(ctx context.Context, data []byte) (string, error) {
	f, err := os.CreateTemp(r.GitDir, "nudgethis-op-index-")
	if err != nil {
		return "", err
	}
	name := f.Name()
	defer os.Remove(name)
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	return r.WriteTree(ctx, Index{Path: name})
}

// IndexFromTree makes the user's index hold tree's entries, keeping the
// stat data of the entries that do not change (git read-tree --reset of one
// tree, on a copy installed under index.lock).
func (r *Repo) IndexFromTree(ctx context.Context, tree string) error {
	if !r.validID(tree) {
		return fmt.Errorf("not a tree id: %q", tree)
	}
	ix, err := r.CopyIndex("oplog")
	if err != nil {
		return err
	}
	args := append(append([]string{}, privateIndexArgs...), "read-tree", "--reset", tree)
	if _, err := r.run(ctx, cmd{args: args, env: ix.env()}); err != nil {
		os.Remove(ix.Path)
		return err
	}
	return r.InstallIndex(ix)
}

// DirtyPaths lists every path that differs between HEAD, the index and
// the work tree, untracked files one by one, ignored files left out.
func (r *Repo) DirtyPaths(ctx context.Context) ([]string, error) {
	out, err := r.git(ctx, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignored=no", "--no-renames", "--ignore-submodules=all")
	if err != nil {
		return nil, err
	}
	var ps []string
	for _, rec := range strings.Split(string(out), "\x00") {
		if len(rec) > 3 {
			ps = append(ps, rec[3:])
		}
	}
	return ps, nil
}

// ChangedPaths lists the paths that differ between two commits ("" is
// an empty tree), recursively, renames off.
func (r *Repo) ChangedPaths(ctx context.Context, a, b string) ([]string, error) {
	if a == "" {
		a = r.EmptyTree()
	}
	if b == "" {
		b = r.EmptyTree()
	}
	if a == b {
		return nil, nil
	}
	out, err := r.git(ctx, "diff-tree", "-r", "-z", "--name-only", "--no-renames", a, b, "--")
	if err != nil {
		return nil, err
	}
	var ps []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			ps = append(ps, p)
		}
	}
	return ps, nil
}

// TreeEntry is one file of a commit's tree.
type TreeEntry struct{ Mode, Blob string }

// FilesAt returns the entries of commit's tree at paths (missing paths are
// absent from the map). An empty commit gives an empty map.
func (r *Repo) FilesAt(ctx context.Context, commit string, paths []string) (map[string]TreeEntry, error) {
	m := map[string]TreeEntry{}
	if commit == "" || len(paths) == 0 {
		return m, nil
	}
	args := append([]string{"ls-tree", "-z", "--full-tree", commit, "--"}, literal(paths)...)
	out, err := r.git(ctx, args...)
	if err != nil {
		return nil, err
	}
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "blob" {
			continue
		}
		m[p] = TreeEntry{Mode: f[0], Blob: f[2]}
	}
	return m, nil
}

func literal(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = ":(literal,top)" + p
	}
	return out
}
