// Package take takes a snapshot of the workspace into a task record:
// the work tree captured (internal/snapshot), the snapshot commit, the
// task's id and ref, and the guard's check of the shared git settings
// made at every new task. Run, start, attempts, refresh and git nudge
// snapshot call it.
package take

import (
	"context"
	"os"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/snapshot"
)

// Snapshot captures the workspace into a new task (state snapshotted),
// holding the workspace lock.
func Snapshot(ctx context.Context, w *nudge.Workspace, note string) (*nudge.Task, error) {
	if err := w.Guard().CheckModes("cannot take a snapshot"); err != nil {
		return nil, err
	}
	w.NoteSuspectsAtLock(ctx)
	l, err := w.Lock(ctx, "git-nudge snapshot")
	if err != nil {
		return nil, err
	}
	defer l.Release()
	return SnapshotLocked(ctx, w, note)
}

// SnapshotLocked is Snapshot with the workspace lock already held.
func SnapshotLocked(ctx context.Context, w *nudge.Workspace, note string) (*nudge.Task, error) {
	return Into(ctx, w, note, nil)
}

// Into captures the workspace into a new task, or, when pending is
// given, into that queued task (its id was allocated when it was queued:
// its snapshot ref moves from the placeholder to the snapshot). The
// workspace lock is held.
func Into(ctx context.Context, w *nudge.Workspace, note string, pending *nudge.Task) (*nudge.Task, error) {
	r := w.Repo
	// The highest id in use is looked up while the work tree is captured.
	type highest struct {
		n   int
		err error
	}
	hc := make(chan highest, 1)
	go func() {
		n, err := refs.Task.HighestUnmarked(ctx, r)
		hc <- highest{n, err}
	}()
	r.StatusFSMonitor = w.SnapshotFSMonitor(ctx)
	// The shared settings and the task records the guard needs are read
	// while the work tree is captured; the guard acts on them (writes
	// anything) only once the capture has succeeded.
	guard := w.ReadGuardForSnapshot()
	// The workspace's own stat cache (git/statcache.go), under the
	// workspace lock; not with fsmonitor, whose new token every run
	// would make git rewrite the whole copy each time.
	r.StatusStatCache = r.StatusFSMonitor == ""
	res, opts, err := snapshot.CaptureConfigured(ctx, r)
	r.StatusFSMonitor, r.StatusStatCache = "", false
	h := <-hc
	guard.Wait()
	if err != nil {
		return nil, err
	}
	if h.err != nil {
		return nil, h.err
	}
	guard.Check(ctx, pending)
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
			Tree: tree, Parents: parents, Message: msg, Author: nudge.Identity, Committer: nudge.Identity,
		})
		if err != nil {
			return nil, err
		}
	}
	if pending != nil {
		t := pending
		if err := moveSnapshotRef(ctx, r, t.ID, commit); err != nil {
			return nil, err
		}
		// Straight to preparing (the caller holds the task's lock): a
		// kill from here on leaves it failed (interrupted), never
		// snapshotted and forgotten by the queue.
		pid := os.Getpid()
		t.State, t.Branch, t.Head = nudge.StatePreparing, nudge.OptStr(head.Branch), nudge.OptStr(head.Commit)
		t.PID = &pid
		t.Snapshot, t.Clean, t.Skipped = commit, res.Clean, nudge.SkippedOf(res.Skipped)
		t.Rules = nudge.RulesOf(opts) // as a snapshot's: the rules at its start
		t.Error = nil
		return t, w.Save(t)
	}
	next, err := w.NextTaskNumber()
	if err != nil {
		return nil, err
	}
	id, err := refs.Task.AllocateFrom(ctx, r, commit, max(next, h.n+1))
	if err != nil {
		return nil, err
	}
	t := &nudge.Task{
		ID:        id,
		State:     nudge.StateSnapshotted,
		Note:      note,
		Created:   w.Now().UTC(),
		Workspace: r.WorkTree,
		Branch:    nudge.OptStr(head.Branch),
		Head:      nudge.OptStr(head.Commit),
		Snapshot:  commit,
		Clean:     res.Clean,
		Skipped:   nudge.SkippedOf(res.Skipped),
		Rules:     nudge.RulesOf(opts),
	}
	if err := w.Save(t); err != nil {
		// Give the id back rather than leave a ref without a record.
		_ = r.DeleteRef(context.WithoutCancel(ctx), refs.Task.Ref(id), commit)
		return nil, err
	}
	return t, nil
}

// moveSnapshotRef points task id's snapshot ref at commit (it held the
// placeholder of a pending task).
func moveSnapshotRef(ctx context.Context, r *git.Repo, id, commit string) error {
	ref := refs.Task.Ref(id)
	old, ok, err := r.ReadRef(ctx, ref)
	if err != nil {
		return err
	}
	if !ok {
		old = r.ZeroID()
	}
	if old == commit {
		return nil
	}
	return r.SetRef(ctx, git.SetRefRequest{Name: ref, New: commit, Old: old})
}
