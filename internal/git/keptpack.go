package git

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WriteKeptPack writes the objects ids into one new pack kept by a .keep
// file that says note, then removes their loose copies (git reads them
// from the pack from then on, as after git repack -d). It returns the
// pack's base path, or "" when objects cannot be packed here.
func (r *Repo) WriteKeptPack(ctx context.Context, ids []string, note string) (string, error) {
	dir := r.PacksDir()
	if dir == "" || len(ids) == 0 {
		return "", nil
	}
	var in bytes.Buffer
	for _, id := range ids {
		if !r.ValidID(id) {
			return "", fmt.Errorf("not an object id: %q", id)
		}
		in.WriteString(id + "\n")
	}
	pack, err := r.run(ctx, cmd{Args: []string{"pack-objects", "--stdout", "-q"}, Stdin: &in})
	if err != nil {
		return "", err
	}
	// index-pack writes the .keep before the pack is in place, so that a
	// repack running meanwhile never takes it.
	out, err := r.run(ctx, cmd{Args: []string{"index-pack", "--stdin", "--keep=" + note}, Stdin: bytes.NewReader(pack)})
	if err != nil {
		return "", err
	}
	_, hash, ok := strings.Cut(strings.TrimSpace(string(out)), "\t")
	if !ok || !r.ValidID(hash) {
		return "", fmt.Errorf("git index-pack said %q", out)
	}
	objects := filepath.Dir(dir)
	for _, id := range ids {
		_ = os.Remove(filepath.Join(objects, id[:2], id[2:]))
	}
	return filepath.Join(dir, "pack-"+hash), nil
}

// Unreachable reports which of the commits reachable from tips no ref,
// HEAD or reflog of any worktree reaches (what git prune would remove).
// It fails when a commit it walks to is missing.
func (r *Repo) Unreachable(ctx context.Context, tips []string) (map[string]bool, error) {
	args := append([]string{"rev-list", "--not", "--all", "--reflog", "--not", "--end-of-options"}, tips...)
	out, err := r.git(ctx, append(args, "--")...)
	if err != nil {
		return nil, err
	}
	m := map[string]bool{}
	for _, id := range strings.Fields(string(out)) {
		m[id] = true
	}
	return m, nil
}

// ForgetCommits keeps the repository's commit-graph true after the
// commits ids were deleted (a dropped pack of the suite's own): when a
// commit-graph file lists one of them, git writes the graph again from
// the refs, in the layout the repository has (one file, or a chain
// replaced whole). Without it git fsck reports the graph's entries for
// commits that are gone, until the user's next git gc. Best effort: a
// failure leaves the graph to that gc.
func (r *Repo) ForgetCommits(ctx context.Context, ids []string) {
	if !r.CommitGraphLists(ids) {
		return
	}
	args := []string{"commit-graph", "write", "--reachable", "--no-progress"}
	if _, chain := r.CommitGraphFiles(); chain {
		args = append(args, "--split=replace")
	}
	_, _ = r.git(ctx, args...)
}
