package git

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/nudgethis/git-nudge/internal/gitexec"
	"github.com/nudgethis/git-nudge/internal/gitstore"
)

// MergeResult is what git merge-file made of three versions of a file.
type MergeResult struct {
	Data      []byte // the merged content (with conflict markers when Conflicts > 0)
	Conflicts int    // the number of conflicting hunks; 0: a clean merge
	Binary    bool   // git refused: one of the versions is binary
}

var mergeSeq atomic.Int64

// MergeFile merges the change base -> theirs into ours, line by line, with
// git's own three-way file merge (`git merge-file -p`): no attributes, no
// merge driver, no end-of-line conversion. dir is a folder of the caller's
// where the three versions are written for git to read (removed again
// before it returns).
func (r *Repo) MergeFile(ctx context.Context, dir string, ours, base, theirs []byte) (MergeResult, error) {
	return r.MergeFileLabeled(ctx, dir, ours, base, theirs, nil)
}

// MergeFileLabeled is MergeFile whose conflicts, when labels (ours, base,
// theirs) are given, are written in the diff3 style with those labels on
// the markers (`git merge-file -p --diff3 -L ... -L ... -L ...`).
func (r *Repo) MergeFileLabeled(ctx context.Context, dir string, ours, base, theirs []byte, labels []string) (MergeResult, error) {
	n := strconv.FormatInt(mergeSeq.Add(1), 10)
	names := []string{"ours-" + n, "base-" + n, "theirs-" + n}
	args := []string{"merge-file", "-p"}
	if len(labels) == 3 {
		args = append(args, "--diff3", "-L", labels[0], "-L", labels[1], "-L", labels[2])
	}
	for i, data := range [][]byte{ours, base, theirs} {
		p := filepath.Join(dir, names[i])
		if err := os.WriteFile(p, data, 0o600); err != nil {
			return MergeResult{}, err
		}
		defer os.Remove(p)
		args = append(args, p)
	}
	out, err := r.run(ctx, cmd{Args: args, Dir: dir})
	if err == nil {
		return MergeResult{Data: out}, nil
	}
	var ge *Error
	if !errors.As(err, &ge) {
		return MergeResult{}, err
	}
	switch c := ge.ExitCode; {
	case c > 0 && c < 128:
		return MergeResult{Data: out, Conflicts: c}, nil
	case strings.Contains(strings.ToLower(ge.Stderr), "binary"):
		return MergeResult{Binary: true}, nil
	}
	return MergeResult{}, err
}

// TreeEntriesAt is TreeEntries of a tree-ish ("<commit>^{tree}" or a
// tree's id), read in this process where it can be (the folders on the
// paths, each once), else by git ls-tree.
func (r *Repo) TreeEntriesAt(ctx context.Context, treeish string, paths []string) ([]IndexEntry, error) {
	if out, ok := r.TreeEntriesHere(treeish, paths); ok {
		return out, nil
	}
	commit, _ := strings.CutSuffix(treeish, "^{tree}")
	return r.TreeEntries(ctx, commit, paths)
}

// IndexEntriesAt returns the user's index entries (stage 0) of paths, in
// their order (an empty Mode and Blob where there is none), and the paths
// among them that have conflict stages. The index is read in this process
// where it can be (versions 2 and 3), else by git ls-files.
func (r *Repo) IndexEntriesAt(ctx context.Context, paths []string) (entries []IndexEntry, unmerged map[string]bool, err error) {
	if entries, unmerged, ok := r.IndexEntriesHere(paths); ok {
		return entries, unmerged, nil
	}
	want := make(map[string]bool, len(paths))
	for _, p := range paths {
		want[p] = true
	}
	found, unmerged := map[string]IndexEntry{}, map[string]bool{}
	args := []string{"ls-files", "-s", "-z", "--full-name", "--"}
	if len(paths) <= gitexec.MaxPathArgs {
		args = append(args, paths...)
	}
	out, err := r.run(ctx, cmd{Args: args, Env: []string{"GIT_LITERAL_PATHSPECS=1"}})
	if err != nil {
		return nil, nil, err
	}
	for _, rec := range gitexec.SplitZ(out) {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || !want[path] {
			continue
		}
		if f[2] != "0" {
			unmerged[path] = true
			continue
		}
		found[path] = IndexEntry{Path: path, Mode: f[0], Blob: f[1]}
	}
	return gitstore.InPathOrder(paths, found), unmerged, nil
}
