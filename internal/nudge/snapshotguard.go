package nudge

import (
	"context"

	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/snapshot"
)

// This file is what taking a snapshot (internal/nudge/take) needs of the
// core: what Reconcile read under the workspace lock, and the guard's
// check of a new task.

// NoteSuspectsAtLock asks the Reconcile of the next Lock to note, from
// the records it reads anyway, which tasks may be the guard's suspects,
// when core.fsmonitor is set (SnapshotFSMonitor asks then).
func (w *Workspace) NoteSuspectsAtLock(ctx context.Context) {
	if v, err := w.Repo.FSMonitorSetting(ctx); err == nil && v != "" {
		w.wantSuspects = true
	}
}

// SnapshotFSMonitor is the core.fsmonitor value a snapshot's git status
// may use ("" for none): only while no task could have written the
// shared config (none live, prepared or pending a check), since a hook
// is a command run outside any sandbox; the value read is then passed to
// git explicitly. A daemon is used only when already running. What
// NoteSuspectsAtLock asked Reconcile to note is used here or dropped.
func (w *Workspace) SnapshotFSMonitor(ctx context.Context) string {
	defer func() { w.suspectsAtLock = nil }()
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

// SnapshotGuard is the guard's reading for a new task, made while the
// work tree is captured: it writes nothing until Check.
type SnapshotGuard struct {
	w *Workspace
	c chan *guardReading
	g *guardReading
}

// ReadGuardForSnapshot starts reading, in the background, the trusted
// state, the shared settings now and the tasks with a pending check (as
// Reconcile read them under the lock held since). The workspace lock is
// held; Wait before anything else uses the workspace.
func (w *Workspace) ReadGuardForSnapshot() *SnapshotGuard {
	s := &SnapshotGuard{w: w, c: make(chan *guardReading, 1)}
	pending := w.pendingAtLock // used once: later changes are ours
	w.pendingAtLock = nil
	go func() { s.c <- w.guardRead(checkSnapshot, pending) }()
	return s
}

// Wait waits for the reading.
func (s *SnapshotGuard) Wait() {
	if s.g == nil {
		s.g = <-s.c
	}
}

// Check is GuardCheck for a snapshot from the reading (waited for if
// need be); pending is the queued task whose snapshot is taken, or nil
// for a new one.
func (s *SnapshotGuard) Check(ctx context.Context, pending *Task) {
	s.Wait()
	s.w.guardCheckRead(ctx, pending, checkSnapshot, s.w.Warn, s.g)
}

// SkippedOf is what a capture left out, never nil (records list "[]").
func SkippedOf(s []snapshot.Skipped) []Skipped {
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
