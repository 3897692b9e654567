package nudge

import (
	"context"
	"path/filepath"
)

// isWorktree reports whether git knows dir as one of the repository's
// worktrees.
func (w *Workspace) isWorktree(ctx context.Context, dir string) (bool, error) {
	paths, err := w.Repo.Worktrees(ctx)
	if err != nil {
		return false, err
	}
	for _, p := range paths {
		if p == dir || samePathOnDisk(p, dir) {
			return true, nil
		}
	}
	return false, nil
}

// uncaptured reports whether t's own worktree (the one git-nudge made)
// holds files, other than ignored ones, that match neither its snapshot
// nor its result: work only that worktree has, which removing it would
// delete.
func (w *Workspace) uncaptured(ctx context.Context, t *Task) (bool, error) {
	if !w.HasWorktree(t) || filepath.Clean(*t.Worktree) != w.WorktreeDir(t.ID) {
		return false, nil
	}
	if registered, err := w.isWorktree(ctx, *t.Worktree); err != nil || !registered {
		return false, err
	}
	tree, _, err := w.CaptureWorktree(ctx, t)
	if err != nil {
		return false, err
	}
	for _, c := range []*string{&t.Snapshot, t.Setup, t.Result} {
		if c == nil || *c == "" {
			continue
		}
		known, err := w.Repo.TreeOf(ctx, *c)
		if err != nil {
			return false, err
		}
		if known == tree {
			return false, nil
		}
	}
	return true, nil
}
