package nudge

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// What the workflows that retire tasks (drop, prune, du) need of the
// core: the ids on disk, the folders they measure, whether a worktree
// holds uncaptured work, and the removal of a task's worktree, which
// belongs to the pool.

// TaskIDs lists the ids that have a record, from the file names alone:
// no record is read or decoded.
func (w *Workspace) TaskIDs() ([]string, error) { return w.taskIDs() }

// StageDir is the folder of .nudgethis where apply and undo prepare the
// files they write.
func (w *Workspace) StageDir() string { return filepath.Join(w.Dir, stageDirName) }

// Uncaptured reports whether t's own worktree (the one git-nudge made)
// holds files, other than ignored ones, that match neither its snapshot
// nor its result: work only that worktree has, which removing the
// worktree would delete.
func (w *Workspace) Uncaptured(ctx context.Context, t *Task) (bool, error) {
	return w.uncaptured(ctx, t)
}

// RemoveTaskWorktree removes task t's own worktree (only the one
// git-nudge made, inside .nudgethis/worktrees), or, when park is set,
// gives it to the pool when the pool takes it; the trusted index kept
// for it goes either way. Set park only when the worktree holds nothing
// uncaptured. A worktree a sandboxed command ran in is never pooled:
// Landlock's grant follows its folders wherever they are moved, so a
// process the command left running could write in the next task's
// worktree. The folder is removed through directory handles, never by
// a remover that resolves its paths again (a folder swapped for a
// symlink meanwhile is not followed); git's record of it is forgotten.
func (w *Workspace) RemoveTaskWorktree(ctx context.Context, t *Task, park bool) error {
	id := t.ID
	dir := w.WorktreeDir(id)
	if t.Worktree != nil && filepath.Clean(*t.Worktree) != dir {
		// Never remove a folder the record names outside .nudgethis.
		dir = ""
	}
	if dir != "" && park && w.HasWorktree(t) && !t.Sandbox && w.park(ctx, id, dir) {
		// Parked in the pool, nothing uncaptured in it.
		dir = ""
	}
	_ = os.Remove(w.trustedIndex(id))
	_ = os.Remove(w.reuseIndex(id))
	if _, err := os.Lstat(dir); dir != "" && errors.Is(err, fs.ErrNotExist) {
		// Gone already; git may still record it (an interrupted pool
		// claim): only that record is forgotten.
		if err := w.Repo.ForgetWorktree(dir); err != nil {
			return err
		}
		dir = ""
	}
	if dir != "" {
		if err := w.removeTaskTree(dir); err != nil {
			return fmt.Errorf("removing the worktree of %s: %w", id, err)
		}
	}
	return nil
}
