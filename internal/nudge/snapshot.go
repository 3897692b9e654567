package nudge

import (
	"context"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/snapshot"
)

// Identity is the author and committer of every commit git-nudge writes
// for itself (snapshots, results): no user identity is needed.
var Identity = git.Identity{Name: "nudge", Email: "nudge@localhost"}

// Snapshot captures the workspace into a new task (state snapshotted),
// holding the workspace lock.
func (w *Workspace) Snapshot(ctx context.Context, note string) (*Task, error) {
	l, err := w.Lock(ctx, "git-nudge snapshot")
	if err != nil {
		return nil, err
	}
	defer l.Release()
	return w.snapshotLocked(ctx, note)
}

// snapshotLocked is Snapshot with the workspace lock already held.
func (w *Workspace) snapshotLocked(ctx context.Context, note string) (*Task, error) {
	r := w.Repo
	// The highest id in use is looked up while the work tree is captured.
	type highest struct {
		n   int
		err error
	}
	hc := make(chan highest, 1)
	go func() {
		n, err := refs.Task.Highest(ctx, r)
		hc <- highest{n, err}
	}()
	res, opts, err := snapshot.CaptureConfigured(ctx, r)
	h := <-hc
	if err != nil {
		return nil, err
	}
	if h.err != nil {
		return nil, h.err
	}
	w.guardCheck(ctx, nil, checkSnapshot, w.Warn)
	head := res.Head
	commit := head.Commit
	if !res.Clean || head.Unborn() {
		tree := res.Tree
		var parents []string
		if head.Unborn() {
			if tree == r.EmptyTree() {
				// An unborn branch with nothing to capture: a root
				// commit of the empty tree stands for "no files".
				if tree, err = r.WriteEmptyTree(ctx); err != nil {
					return nil, err
				}
			}
		} else {
			parents = []string{head.Commit}
		}
		msg := "nudge snapshot"
		if note != "" {
			msg += "\n\n" + note
		}
		commit, err = r.CommitTree(ctx, git.CommitRequest{
			Tree: tree, Parents: parents, Message: msg, Author: Identity, Committer: Identity,
		})
		if err != nil {
			return nil, err
		}
	}
	next, err := w.nextTaskNumber()
	if err != nil {
		return nil, err
	}
	id, err := refs.Task.AllocateFrom(ctx, r, commit, max(next, h.n+1))
	if err != nil {
		return nil, err
	}
	t := &Task{
		ID:        id,
		State:     StateSnapshotted,
		Note:      note,
		Created:   w.Now().UTC(),
		Workspace: r.WorkTree,
		Branch:    optStr(head.Branch),
		Head:      optStr(head.Commit),
		Snapshot:  commit,
		Clean:     res.Clean,
		Skipped:   toSkipped(res.Skipped),
		Rules:     rulesOf(opts),
	}
	if err := w.Save(t); err != nil {
		// Give the id back rather than leave a ref without a record.
		_ = r.DeleteRef(context.WithoutCancel(ctx), refs.Task.Ref(id), commit)
		return nil, err
	}
	return t, nil
}

// toSkipped is what a capture left out, never nil (records list "[]").
func toSkipped(s []snapshot.Skipped) []Skipped {
	if s == nil {
		return []Skipped{}
	}
	return s
}

// nextTaskNumber is one past the highest id with a record in this
// workspace, so that an id whose ref was deleted by hand is not reused.
func (w *Workspace) nextTaskNumber() (int, error) {
	ids, err := w.taskIDs()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		if k, ok := refs.Task.Number(id); ok && k > n {
			n = k
		}
	}
	return n + 1, nil
}
