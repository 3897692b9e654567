package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/take"
	"github.com/nudgethis/git-nudge/internal/pool"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// StartOptions says how to prepare a task's worktree.
type StartOptions struct {
	// NoSetup skips the nudge.setup commands.
	NoSetup bool
	// Environ is the environment setup commands start from.
	Environ []string
	// Output shows setup commands' output live (it is also kept in
	// logs/<id>/setup.log); nil shows nothing.
	Output io.Writer
	// Note is the note of the snapshot taken when no task is named.
	Note string
	// KeepWorktree keeps the worktree once the task is finished
	// (--keep-worktree; recorded in the task).
	KeepWorktree bool

	// hold is the task's lock file, inherited by the setup commands.
	hold *os.File
	// signals received while a setup command runs are passed on to its
	// process group (run, work).
	signals <-chan os.Signal
	// run: a run (or the queue) goes on to run its command in the
	// worktree, and saves the task running itself.
	run bool
}

// Start gives a task a worktree: it takes a snapshot first when id is "",
// adds a detached linked worktree on the snapshot commit, copies in the
// ignored files .worktreeinclude lists and runs the nudge.setup commands.
// A task whose preparation fails is left failed with the reason.
func Start(ctx context.Context, ws *nudge.Workspace, id string, o StartOptions) (*nudge.Task, error) {
	w := workspace{ws}
	if err := w.Guard().CheckModes("cannot start a task"); err != nil {
		return nil, err
	}
	l, err := w.Lock(ctx, "git-nudge start")
	if err != nil {
		return nil, err
	}
	t, err := w.taskToStart(ctx, id, o.Note)
	if err != nil {
		l.Release()
		return nil, err
	}
	hold, err := w.HoldTask(ctx, t.ID)
	if err != nil {
		l.Release()
		return nil, err
	}
	defer hold.Release()
	o.hold = hold.File()
	if w.resultWithoutWorktree(t) {
		// Finished: its worktree comes back at the result (RestoreHeld).
		l, err := w.RestoreHeld(ctx, t, l, o.Output, o.KeepWorktree)
		if l != nil {
			l.Release()
		}
		return t, err
	}
	if o.KeepWorktree {
		t.KeepWorktree = true
	}
	_, err = w.prepareHeld(ctx, t, l, o)
	return t, err
}

// taskToStart returns the task a start (or run) prepares, taking a new
// snapshot when id is "". The workspace lock is held.
func (w workspace) taskToStart(ctx context.Context, id, note string) (*nudge.Task, error) {
	if id == "" {
		return take.SnapshotLocked(ctx, w.Workspace, note)
	}
	t, err := w.loadIdle(id, "cannot start "+id)
	if err != nil {
		return nil, err
	}
	switch {
	case t.State == nudge.StatePending:
		return nil, &nudge.RefusedError{What: "cannot start " + id, Reasons: []string{nudge.PendingAdvice(id)}}
	case t.State == nudge.StateSnapshotted:
	case t.State == nudge.StateFailed && t.Result == nil && t.Command == nil:
		// Its preparation failed: a leftover worktree is made afresh.
	case w.resultWithoutWorktree(t):
		// Finished, its worktree given back (or never made): one comes
		// back at its result.
	case t.State == nudge.StatePrepared || t.State == nudge.StateReady || t.State == nudge.StateFailed:
		return nil, &nudge.RefusedError{
			What:    "cannot start " + id,
			Reasons: []string{fmt.Sprintf("it already has a worktree at %s", nudge.Deref(t.Worktree))},
			Next:    fmt.Sprintf("Run a command in it with git nudge run --task %s -- CMD, or record it with git nudge capture %s.", id, id),
		}
	default:
		return nil, &nudge.RefusedError{
			What:    "cannot start " + id,
			Reasons: []string{fmt.Sprintf("it is %s", nudge.StateLabel(t.State))},
			Next:    "Take a new snapshot with git nudge start (no id) to start a fresh task.",
		}
	}
	return t, nil
}

// resultWithoutWorktree reports whether t, ready or failed, has a result
// but no worktree: one recorded with capture --from (or a worktree removed
// since). Neither start nor run may give it a fresh worktree: that starts
// from the snapshot again, and a run's capture would replace the result.
func (w workspace) resultWithoutWorktree(t *nudge.Task) bool {
	return (t.State == nudge.StateReady || t.State == nudge.StateFailed) && t.Result != nil && !w.HasWorktree(t)
}

// prepareHeld records t as preparing, releases the workspace lock l while
// the worktree is made and set up (t's own lock is held throughout), then
// records the outcome: prepared, or failed with the reason. Prepared for
// a run (o.run), it returns the workspace lock still held, for the run
// to record the task running without taking it again; otherwise, and on
// an error, no lock is held.
func (w workspace) prepareHeld(ctx context.Context, t *nudge.Task, l *journal.Lock, o StartOptions) (held *journal.Lock, _ error) {
	dir := w.WorktreeDir(t.ID)
	pid := os.Getpid()
	t.State = nudge.StatePreparing
	t.Worktree = &dir
	t.Error = nil
	t.PID, t.CommandPID = &pid, nil
	if err := w.Save(t); err != nil {
		l.Release()
		return nil, err
	}
	// A pooled worktree is taken under the workspace lock (no two tasks
	// get the same one) and reset outside it.
	claim := w.WorktreePool().Claim(ctx, t.ID, dir)
	l.Release()

	perr := w.prepare(ctx, t, dir, o, claim)

	// The outcome is recorded even when the user interrupted.
	ctx = context.WithoutCancel(ctx)
	what := "git-nudge start"
	if o.run {
		what = "git-nudge run"
	}
	l, err := w.Lock(ctx, what)
	if err != nil {
		return nil, errors.Join(perr, err)
	}
	defer func() {
		if held == nil {
			l.Release()
		}
	}()
	// Prepared for a run, the record stays preparing, with this process's
	// pid, until the run saves it running: a kill in between leaves it
	// interrupted during preparation (settled as failed), never prepared,
	// a state the queue would not take up again.
	if perr != nil || !o.run {
		t.PID, t.CommandPID = nil, nil
	}
	w.GuardCheck(ctx, t, nudge.CheckOwn, o.Output)
	if perr != nil {
		msg := perr.Error()
		t.State = nudge.StateFailed
		t.Error = &msg
		if !w.HasWorktree(t) {
			t.Worktree = nil
		}
		return nil, errors.Join(perr, w.Save(t))
	}
	if o.run {
		return l, nil
	}
	t.State = nudge.StatePrepared
	return nil, w.Save(t)
}

// prepare makes the worktree (from claim, on the snapshot), copies the
// included ignored files and runs the setup commands.
func (w workspace) prepare(ctx context.Context, t *nudge.Task, dir string, o StartOptions, claim *pool.Claim) error {
	if err := claim.Checkout(ctx, t.Snapshot, o.Output); err != nil {
		return err
	}
	if err := w.CopyIncludes(ctx, dir); err != nil {
		return fmt.Errorf("copying the files %s lists: %w", nudge.IncludeFile, err)
	}
	t.Setup, t.SetupFiles = nil, nil
	if o.NoSetup {
		return nil
	}
	ran, err := w.runSetup(ctx, t, dir, o)
	if err != nil || !ran {
		return err
	}
	return w.recordSetup(ctx, t)
}

// recordSetup records what the setup commands changed in t's worktree:
// a commit of the worktree's state (captured with the snapshot's rules)
// on the snapshot, pinned by refs/nudgethis/setup/<id>, and the paths it
// changed. Setup that changed nothing records nothing (and drops a setup
// ref left by an earlier preparation).
func (w workspace) recordSetup(ctx context.Context, t *nudge.Task) error {
	r := w.Repo
	ref := refs.Setups + t.ID
	old, had, err := r.ReadRef(ctx, ref)
	if err != nil {
		return err
	}
	tree, _, err := w.CaptureWorktree(ctx, t)
	if err != nil {
		return fmt.Errorf("recording what setup changed: %w", err)
	}
	snapTree, err := r.TreeOf(ctx, t.Snapshot)
	if err != nil {
		return err
	}
	if tree == snapTree {
		if had {
			return r.DeleteRef(ctx, ref, old)
		}
		return nil
	}
	commit, err := r.CommitTree(ctx, git.CommitRequest{
		Tree: tree, Parents: []string{t.Snapshot}, Message: "nudge setup " + t.ID,
		Author: nudge.Identity, Committer: nudge.Identity,
	})
	if err != nil {
		return err
	}
	if !had {
		old = r.ZeroID()
	}
	if err := r.SetRef(ctx, git.SetRefRequest{Name: ref, New: commit, Old: old}); err != nil {
		return err
	}
	files, err := nudge.ComputeFiles(ctx, r, t.Snapshot, commit)
	if err != nil {
		return err
	}
	t.Setup, t.SetupFiles = &commit, files
	return nil
}

// runSetup runs each `git config --get-all nudge.setup` command with sh -c
// in the worktree, output kept in logs/<id>/setup.log; the first failure
// stops the setup. ran is false when there is no setup command.
func (w workspace) runSetup(ctx context.Context, t *nudge.Task, dir string, o StartOptions) (ran bool, _ error) {
	cmds, err := w.Repo.ConfigGetAll(ctx, "nudge.setup")
	if err != nil || len(cmds) == 0 {
		return false, err
	}
	logPath := filepath.Join(w.LogDir(t.ID), "setup.log")
	log, err := openShellLog(logPath, o.Output)
	if err != nil {
		return true, err
	}
	defer log.Close()
	for _, c := range cmds {
		code, err := log.command(c, dir, w.childEnv(o.Environ, t, dir), o.hold, o.signals).run()
		if err != nil {
			return true, fmt.Errorf("setup command %q: %w", c, err)
		}
		if code != 0 {
			return true, fmt.Errorf("setup command %q exited with status %d; its output is in %s", c, code, logPath)
		}
		if ctx.Err() != nil {
			return true, ctx.Err()
		}
	}
	return true, nil
}

// loadIdle loads task id, refusing (as what) when another git-nudge
// process is preparing or running it.
func (w workspace) loadIdle(id, what string) (*nudge.Task, error) {
	t, err := w.Load(id)
	if err != nil {
		return nil, err
	}
	if w.Busy(id) {
		return nil, &nudge.RefusedError{What: what, Reasons: []string{w.BusyReason(t)}, Next: "Wait for it to finish (git nudge list shows its state)."}
	}
	return t, nil
}
