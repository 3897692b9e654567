package nudge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/pool"
	"github.com/nudgethis/git-nudge/internal/proc"
)

// A finished task keeps its result, not a checkout: once a task is ready
// or failed with its result captured, its worktree holds nothing the
// result does not (ignored files aside: build output and dependency
// folders are never part of a result, and drop deletes them too) and no
// live process uses it, the worktree goes back to the pool, or is
// removed when the pool has no room. git nudge start ID (or run --task
// ID) brings one back, checked out at the result, in the time a pooled
// worktree takes. git config nudge.keepWorktrees true, or --keep-worktree
// on start, run and capture, keep them.

// KeepWorktreesKey is the git config key that keeps finished tasks'
// worktrees.
const KeepWorktreesKey = "nudge.keepWorktrees"

// keepWorktrees reads nudge.keepWorktrees (an unreadable value keeps).
func (w *Workspace) keepWorktrees(ctx context.Context) bool {
	keep, err := w.Repo.ConfigBool(ctx, KeepWorktreesKey, false)
	return err != nil || keep
}

// ReleaseLocked gives back finished task t's worktree when it can (see
// above) and records that in t (saved). The workspace lock is held, and
// no other process works on t (its own lock is held, or it is idle).
// out, when set, is told where the worktree went. It reports whether the
// worktree was given back.
//
// fresh says that t's result was captured from the worktree under the
// workspace lock held since, with nothing run there after (no
// validation): the worktree is not captured a second time to tell.
func (w *Workspace) ReleaseLocked(ctx context.Context, t *Task, fresh bool, out io.Writer) bool {
	if t.KeepWorktree || t.Result == nil || (t.State != StateReady && t.State != StateFailed) || !w.HasWorktree(t) {
		return false
	}
	dir := w.WorktreeDir(t.ID)
	if filepath.Clean(*t.Worktree) != dir || w.keepWorktrees(ctx) {
		return false
	}
	if hs, ok := proc.Holders(dir); !ok || len(hs) > 0 {
		return false // a process the task left still works there
	}
	if !fresh {
		if lost, err := w.uncaptured(ctx, t); err != nil || lost {
			return false
		}
	}
	where := "to the pool"
	// A worktree a sandboxed command ran in is never pooled (see
	// RemoveTaskWorktree).
	if t.Sandbox || !w.park(ctx, t.ID, dir) {
		if err := w.removeTaskTree(dir); err != nil {
			return false
		}
		where = "removed"
	}
	_ = os.Remove(w.trustedIndex(t.ID))
	_ = os.Remove(w.reuseIndex(t.ID))
	t.Worktree = nil
	t.WorktreeReleased = true
	if err := w.Save(t); err != nil {
		return false
	}
	if out != nil {
		fmt.Fprintf(out, "git nudge: %s's worktree was given back (%s), its result kept (git nudge start %s brings one back at the result; --keep-worktree keeps it)\n",
			t.ID, where, t.ID)
	}
	return true
}

// ReleaseWorktree gives back task id's worktree when it is finished and
// holds nothing uncaptured (see ReleaseLocked); keep records
// --keep-worktree instead. Busy tasks are left alone.
func (w *Workspace) ReleaseWorktree(ctx context.Context, id string, keep bool, out io.Writer) error {
	l, err := w.Lock(ctx, "git-nudge release")
	if err != nil {
		return err
	}
	defer l.Release()
	t, err := w.Load(id)
	if err != nil || w.Busy(id) {
		return err
	}
	if keep {
		if !t.KeepWorktree {
			t.KeepWorktree = true
			return w.Save(t)
		}
		return nil
	}
	w.ReleaseLocked(ctx, t, false, out)
	return nil
}

// RestoreHeld brings back a worktree for finished task t, whose result is
// recorded and whose worktree was given back (or never made: capture
// --from): taken from the pool when it has one, or made afresh, at the
// snapshot, then with the result's files checked out, as the task's own
// worktree was when its result was captured (HEAD at the snapshot, the
// task's changes not staged). The setup commands are not run again: what
// they changed in tracked files is in the result already. The workspace
// lock l is released while the files are written (t's own lock is held)
// and taken again; the new lock is returned. out, when set, is told when
// a pooled worktree could not be used; keep records --keep-worktree.
func (w *Workspace) RestoreHeld(ctx context.Context, t *Task, l *journal.Lock, out io.Writer, keep bool) (*journal.Lock, error) {
	dir := w.WorktreeDir(t.ID)
	claim := w.WorktreePool().Claim(ctx, t.ID, dir)
	l.Release()
	err := w.materialize(ctx, t, dir, claim, out)
	ctx = context.WithoutCancel(ctx)
	l, lerr := w.Lock(ctx, "git-nudge start")
	if lerr != nil {
		return nil, errors.Join(err, lerr)
	}
	if err != nil {
		if _, serr := os.Lstat(dir); serr == nil {
			_ = w.WorktreePool().DiscardWorktree(dir)
		}
		return l, fmt.Errorf("bringing back the worktree of %s: %w", t.ID, err)
	}
	t.Worktree = &dir
	t.WorktreeReleased = false
	if keep {
		t.KeepWorktree = true
	}
	return l, w.Save(t)
}

// materialize makes t's worktree at dir (see RestoreHeld).
func (w *Workspace) materialize(ctx context.Context, t *Task, dir string, claim *pool.Claim, out io.Writer) error {
	if err := claim.Checkout(ctx, t.Snapshot, out); err != nil {
		return err
	}
	admin, err := w.WorktreePool().AdminOf(dir)
	if err != nil {
		return err
	}
	wt := w.Repo.WorktreeRepo(dir, admin)
	if err := wt.ResetWorktreeTo(ctx, *t.Result); err != nil {
		return err
	}
	if err := wt.ResetIndexTo(ctx, t.Snapshot); err != nil {
		return err
	}
	if err := w.CopyIncludes(ctx, dir); err != nil {
		return fmt.Errorf("copying the files %s lists: %w", IncludeFile, err)
	}
	return nil
}
