package journal

import (
	"context"
	"path/filepath"
	"time"
)

// WorkTreeLockName is the lock file, in a work tree's own git dir (.git,
// or .git/worktrees/<name> for a linked worktree), that every command of
// git-nudge and git-autodev changing that work tree, its index or its
// HEAD holds: apply, undo and save, checkpoint, park and restore. Each
// tool also has a lock of its own (.nudgethis/lock, .autodev/lock) for its
// journals; this one makes the two tools wait for each other, so that a
// checkpoint never commits half of an apply and a restore never meets an
// apply's temp files. It lives in the git dir, outside the work tree, so
// both tools find the same file and no task's files hold it.
const WorkTreeLockName = "nudgethis-worktree.lock"

// WorkTreeLockPath is the work-tree lock of the work tree whose own git
// dir is gitDir.
func WorkTreeLockPath(gitDir string) string { return filepath.Join(gitDir, WorkTreeLockName) }

// AcquireWorkTree takes the work-tree lock of gitDir while outer, the
// calling tool's own lock, is held, and returns outer, which now releases
// both (the work-tree lock first). On failure outer is released too. The
// order is always the tool's lock, then the work-tree lock, and no holder
// of the work-tree lock waits for a tool's lock: two tools (or two
// commands of one) never wait for each other in a circle. A run's
// run.lock is held without it while the command runs, so checkpoints made
// during a run take it as usual.
func AcquireWorkTree(ctx context.Context, outer *Lock, gitDir string, timeout time.Duration, what string) (*Lock, error) {
	in, err := Acquire(ctx, WorkTreeLockPath(gitDir), timeout, what)
	if err != nil {
		outer.Release()
		return nil, err
	}
	outer.inner = in
	return outer, nil
}
