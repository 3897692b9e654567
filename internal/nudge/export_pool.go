package nudge

import (
	"context"

	"github.com/nudgethis/git-nudge/internal/pool"
)

// The workspace's worktree pool and trash live in internal/pool, which
// knows no task records; these are the workspace's doors to it.

// PoolDirName is the pool's folder inside .nudgethis.
const PoolDirName = pool.DirName

// WorktreePool is the workspace's pool of task worktrees and its trash.
func (w *Workspace) WorktreePool() *pool.Pool {
	return &pool.Pool{Repo: w.Repo, Dir: w.Dir, Wait: LockTimeout, Lock: w.Lock}
}

// Pool lists the parked worktrees ready to be taken, by name. It creates
// nothing.
func (w *Workspace) Pool() ([]pool.Entry, error) { return w.WorktreePool().Entries() }

// EmptyTrash deletes the worktrees this command or an interrupted one
// moved to .nudgethis/trash (see pool.Pool.EmptyTrash). The caller holds
// no lock of the suite.
func (w *Workspace) EmptyTrash() error { return w.WorktreePool().EmptyTrash() }

func (w *Workspace) trustedIndex(id string) string { return w.WorktreePool().TrustedIndex(id) }

func (w *Workspace) reuseIndex(id string) string { return w.WorktreePool().ReuseIndex(id) }

func (w *Workspace) removeTaskTree(dir string) error { return w.WorktreePool().RemoveWorktree(dir) }

// park gives task id's worktree dir to the pool when it has room (see
// pool.Pool.Park); the paths the task's result changes are read from its
// record, only when the pool is bounded by bytes.
func (w *Workspace) park(ctx context.Context, id, dir string) bool {
	return w.WorktreePool().Park(ctx, id, dir, func() ([]string, error) {
		t, err := w.Load(id)
		if err != nil {
			return nil, err
		}
		paths := make([]string, len(t.Files))
		for i, f := range t.Files {
			paths[i] = f.Path
		}
		return paths, nil
	})
}
