package nudge

import (
	"context"

	"github.com/nudgethis/git-nudge/internal/git"
)

// ComputeFiles returns the patch of a task as the record stores it: every
// path that differs between the snapshot and the result commit
// (diff-tree -r --no-renames, mode-only changes included), with git's octal
// modes and full blob ids, nil for the side where the path is absent.
func ComputeFiles(ctx context.Context, repo *git.Repo, snapshotCommit, resultCommit string) ([]FileChange, error) {
	changes, err := repo.DiffTrees(ctx, snapshotCommit, resultCommit)
	if err != nil {
		return nil, err
	}
	files := make([]FileChange, 0, len(changes))
	for _, c := range changes {
		files = append(files, FileChange{
			Path:    c.Path,
			Status:  c.Status,
			OldMode: presentMode(c.OldMode),
			OldBlob: presentBlob(c.OldMode, c.OldBlob),
			NewMode: presentMode(c.NewMode),
			NewBlob: presentBlob(c.NewMode, c.NewBlob),
		})
	}
	return files, nil
}

func presentMode(mode string) *string {
	if git.AbsentMode(mode) {
		return nil
	}
	return StrPtr(mode)
}

func presentBlob(mode, blob string) *string {
	if git.AbsentMode(mode) {
		return nil
	}
	return StrPtr(blob)
}
