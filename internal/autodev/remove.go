package autodev

import (
	"context"
	"strings"

	"github.com/nudgethis/git-nudge/internal/snapshot"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// removeParkedUntracked is the second half of restore's step 4: after the
// reset, remove the files that were untracked before it, were parked in
// the pre-restore commit and that the checkpoint does not have. Nothing
// else is ever removed: not ignored files, not .autodev/, not embedded
// repositories, not files that appeared after the listing. Folders left
// empty by a removal are removed too. The files are removed through
// internal/worktree (worktree.Tree.RemoveAny, then PruneAll), so no path
// can escape the work tree, even when a folder is swapped for a symlink
// while this runs.
func (ws *Workspace) removeParkedUntracked(ctx context.Context, target, parkedCommit string, untracked []string) ([]string, error) {
	if len(untracked) == 0 || parkedCommit == "" {
		return nil, nil
	}
	inTarget, err := ws.filesIn(ctx, target, untracked)
	if err != nil {
		return nil, err
	}
	inParked, err := ws.filesIn(ctx, parkedCommit, untracked)
	if err != nil {
		return nil, err
	}
	wt, err := worktree.Open(ws.Repo.WorkTree)
	if err != nil {
		return nil, err
	}
	defer wt.Close()
	var removed []string
	for _, p := range untracked {
		if strings.HasSuffix(p, "/") || !inParked[p] || inTarget[p] || isExcluded(p) {
			continue
		}
		ok, err := wt.RemoveAny(p)
		if err != nil {
			return removed, err
		}
		if ok {
			removed = append(removed, p)
		}
	}
	wt.PruneAll(removed)
	return removed, nil
}

// isExcluded reports whether p is a path no checkpoint, park or restore
// takes or removes (the checkpoint policy's excludes).
func isExcluded(p string) bool { return snapshot.CheckpointPolicy.Excluded(p) }
