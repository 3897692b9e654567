package git

// This file holds reading trees (a commit's tree, its paths and
// entries) and the small trees written whole (the empty tree, a tree of
// blobs). Trees edited path by path are in treebuild.go, checks of trees
// in treecheck.go.

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/nudgethis/git-nudge/internal/gitexec"
	"github.com/nudgethis/git-nudge/internal/gitstore"
)

// TreePaths returns every path (files, symlinks, submodules) in commit's
// tree, relative to the top level.
func (r *Repo) TreePaths(ctx context.Context, commit string) (map[string]bool, error) {
	out, err := r.git(ctx, "ls-tree", "-r", "-z", "--full-tree", "--name-only", commit)
	if err != nil {
		return nil, err
	}
	paths := gitexec.SplitZ(out)
	set := make(map[string]bool, len(paths))
	for _, p := range paths {
		set[p] = true
	}
	return set, nil
}

// writeTreeEntries writes a tree of entries named by their ids (all names
// of equal length, so git's order is plain byte order) in this process.
func (r *Repo) writeIDTree(entries [][2]string) (string, error) {
	sort.Slice(entries, func(i, j int) bool { return entries[i][1] < entries[j][1] })
	var b bytes.Buffer
	for _, e := range entries {
		raw, err := hex.DecodeString(e[1])
		if err != nil {
			return "", err
		}
		b.WriteString(e[0] + " " + e[1] + "\x00")
		b.Write(raw)
	}
	return r.WriteObject("tree", b.Bytes())
}

// BlobTree writes a tree holding each blob once (entries named by their
// ids) and returns its id: it keeps those blobs reachable.
func (r *Repo) BlobTree(ctx context.Context, blobs, trees []string) (string, error) {
	var in bytes.Buffer
	seen := map[string]bool{}
	var entries [][2]string
	for _, t := range trees {
		if t == "" || seen[t] || !r.ValidID(t) {
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
		if !r.ValidID(b) {
			return "", fmt.Errorf("not an object id: %q", b)
		}
		seen[b] = true
		fmt.Fprintf(&in, "100644 blob %s\t%s\n", b, b)
		entries = append(entries, [2]string{ModeFile, b})
	}
	if r.InProcess() {
		// Every entry was written by the caller or checked to exist (an
		// index's cache-tree), but the empty tree, which git only
		// pretends to have: it is written here.
		if seen[r.EmptyTree()] {
			if _, err := r.WriteObject("tree", nil); err != nil {
				return "", err
			}
		}
		return r.writeIDTree(entries)
	}
	// mktree writes the empty tree too (a SHA-256 repository may not
	// have it yet).
	out, err := r.run(ctx, cmd{Args: []string{"mktree"}, Stdin: &in})
	return strings.TrimSpace(string(out)), err
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
	args := append([]string{"ls-tree", "-z", "--full-tree", commit, "--"}, gitexec.LiteralSpecs(paths)...)
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

// TreeOf returns the tree id of a commit.
func (r *Repo) TreeOf(ctx context.Context, commit string) (string, error) {
	return r.line(ctx, "rev-parse", "--verify", "--end-of-options", commit+"^{tree}")
}

// TreeEntries returns, for each path, its entry in commit's tree; a path the
// tree lacks comes back with an empty Mode and Blob (an index removal).
func (r *Repo) TreeEntries(ctx context.Context, commit string, paths []string) ([]IndexEntry, error) {
	args := []string{"ls-tree", "-z", "--full-tree", commit, "--"}
	if len(paths) <= gitexec.MaxPathArgs {
		args = append(args, paths...)
	} else {
		// Too many to name on a command line: list the whole tree.
		args = []string{"ls-tree", "-r", "-z", "--full-tree", commit}
	}
	out, err := r.run(ctx, cmd{Args: args, Env: []string{"GIT_LITERAL_PATHSPECS=1"}})
	if err != nil {
		return nil, err
	}
	found := map[string]IndexEntry{}
	for _, rec := range gitexec.SplitZ(out) {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			continue
		}
		found[path] = IndexEntry{Path: path, Mode: f[0], Blob: f[2]}
	}
	return gitstore.InPathOrder(paths, found), nil
}

// WriteEmptyTree stores the empty tree object (git only pretends to have it
// until someone writes it) and returns its id.
func (r *Repo) WriteEmptyTree(ctx context.Context) (string, error) {
	return r.line(ctx, "mktree", "-z")
}
