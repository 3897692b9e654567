package nudge

import (
	"context"
	"os"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/snapshot"
)

// Snapshot captures the workspace into a new task (state snapshotted),
// holding the workspace lock.
func (w *Workspace) Snapshot(ctx context.Context, note string) (*Task, error) {
	if err := w.Guard().CheckModes("cannot take a snapshot"); err != nil {
		return nil, err
	}
	if v, err := w.Repo.FSMonitorSetting(ctx); err == nil && v != "" {
		// statusFSMonitor's question, answered from Reconcile's reading.
		w.wantSuspects = true
	}
	l, err := w.Lock(ctx, "git-nudge snapshot")
	if err != nil {
		return nil, err
	}
	defer l.Release()
	return w.SnapshotLocked(ctx, note)
}

// SnapshotLocked is Snapshot with the workspace lock already held.
func (w *Workspace) SnapshotLocked(ctx context.Context, note string) (*Task, error) {
	return w.TakeSnapshot(ctx, note, nil)
}

// TakeSnapshot captures the workspace into a new task, or, when pending
// is given, into that queued task (its id was allocated when it was
// queued: its snapshot ref moves from the placeholder to the snapshot).
func (w *Workspace) TakeSnapshot(ctx context.Context, note string, pending *Task) (*Task, error) {
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
	r.StatusFSMonitor = w.statusFSMonitor(ctx)
	w.suspectsAtLock = nil // for statusFSMonitor only
	// The shared settings and the task records the guard needs are read
	// while the work tree is captured; the guard acts on them (writes
	// anything) only once the capture has succeeded.
	guardc := make(chan *guardReading, 1)
	pendingAtLock := w.pendingAtLock // used once: later changes are ours
	w.pendingAtLock = nil
	go func() { guardc <- w.guardRead(checkSnapshot, pendingAtLock) }()
	// The workspace's own stat cache (git/statcache.go), under the
	// workspace lock; not with fsmonitor, whose new token every run
	// would make git rewrite the whole copy each time.
	r.StatusStatCache = r.StatusFSMonitor == ""
	res, opts, err := snapshot.CaptureConfigured(ctx, r)
	r.StatusFSMonitor, r.StatusStatCache = "", false
	h := <-hc
	g := <-guardc
	if err != nil {
		return nil, err
	}
	if h.err != nil {
		return nil, h.err
	}
	w.guardCheckRead(ctx, pending, checkSnapshot, w.Warn, g)
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
	if pending != nil {
		t := pending
		if err := w.moveSnapshotRef(ctx, t.ID, commit); err != nil {
			return nil, err
		}
		// Straight to preparing (the caller holds the task's lock): a
		// kill from here on leaves it failed (interrupted), never
		// snapshotted and forgotten by the queue.
		pid := os.Getpid()
		t.State, t.Branch, t.Head = StatePreparing, OptStr(head.Branch), OptStr(head.Commit)
		t.PID = &pid
		t.Snapshot, t.Clean, t.Skipped = commit, res.Clean, toSkipped(res.Skipped)
		t.Rules = rulesOf(opts) // as a snapshot's: the rules at its start
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
	t := &Task{
		ID:        id,
		State:     StateSnapshotted,
		Note:      note,
		Created:   w.Now().UTC(),
		Workspace: r.WorkTree,
		Branch:    OptStr(head.Branch),
		Head:      OptStr(head.Commit),
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

// NextTaskNumber is one past the highest id with a record in this
// workspace, so that an id whose ref was deleted by hand is not reused.
func (w *Workspace) NextTaskNumber() (int, error) {
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

// statusFSMonitor is the core.fsmonitor value the snapshot's git status may
// use ("" for none): only while no task could have written the shared
// config (none live, prepared or pending a check), since a hook is a
// command run outside any sandbox; the value read is then passed to git
// explicitly. A daemon is used only when already running.
func (w *Workspace) statusFSMonitor(ctx context.Context) string {
	v, err := w.Repo.FSMonitorSetting(ctx)
	if err != nil || v == "" {
		return ""
	}
	active, passive, err := w.guardSuspects(nil, checkSnapshot)
	if err != nil || len(active) > 0 || len(passive) > 0 {
		return ""
	}
	return v
}

// moveSnapshotRef points task id's snapshot ref at commit (it held the
// placeholder of a pending task).
func (w *Workspace) moveSnapshotRef(ctx context.Context, id, commit string) error {
	ref := refs.Task.Ref(id)
	old, ok, err := w.Repo.ReadRef(ctx, ref)
	if err != nil {
		return err
	}
	if !ok {
		old = w.Repo.ZeroID()
	}
	if old == commit {
		return nil
	}
	return w.Repo.SetRef(ctx, git.SetRefRequest{Name: ref, New: commit, Old: old})
}
