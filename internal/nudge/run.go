package nudge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// RunOptions describes a `git nudge run`.
type RunOptions struct {
	TaskID  string   // "" takes a snapshot and starts a new task
	NoSetup bool     // skip nudge.setup when a worktree is made
	Command []string // the program and its arguments
	Note    string   // note of the snapshot taken when TaskID is ""

	Environ []string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	// Signals received while the command runs are passed on to it, except
	// those Skip returns true for (an interrupt the terminal already sent
	// to the whole foreground process group).
	Signals <-chan os.Signal
	Skip    func(os.Signal) bool
	// Group runs the command in a process group of its own (when it does
	// not read from a terminal): signals reach all it started, and what
	// it leaves running is stopped when it exits.
	Group bool
}

// Run runs a command in a task's worktree (making the task and its
// worktree first when needed), keeps its output in logs/<id>/run.log
// (bounded) and captures the result. The task ends ready when the command
// succeeded and failed otherwise; its result is captured either way. The
// command's exit status is returned (127 when it could not be started).
func (w *Workspace) Run(ctx context.Context, o RunOptions) (*Task, int, error) {
	if len(o.Command) == 0 {
		return nil, 0, errors.New("no command to run: git nudge run -- CMD [ARG...]")
	}
	l, err := w.Lock(ctx, "git-nudge run")
	if err != nil {
		return nil, 0, err
	}
	t, err := w.taskToRun(ctx, o.TaskID, o.Note)
	if err != nil {
		l.Release()
		return nil, 0, err
	}
	hold, err := w.HoldTask(ctx, t.ID)
	if err != nil {
		l.Release()
		return nil, 0, err
	}
	defer hold.Release()
	if !w.hasWorktree(t) {
		so := StartOptions{NoSetup: o.NoSetup, Environ: o.Environ, Output: o.Stderr}
		if err := w.prepareHeld(ctx, t, l, so); err != nil {
			return t, 0, err
		}
		if l, err = w.Lock(ctx, "git-nudge run"); err != nil {
			return t, 0, err
		}
	}
	dir := *t.Worktree
	t.State = StateRunning
	t.Command = o.Command
	t.ExitCode = nil
	t.Error = nil
	err = w.Save(t)
	l.Release()
	if err != nil {
		return t, 0, err
	}

	code, runErr := w.runCommand(t, dir, o)

	// The outcome is recorded even after an interrupt.
	ctx = context.WithoutCancel(ctx)
	l, err = w.Lock(ctx, "git-nudge run")
	if err != nil {
		return t, code, err
	}
	defer l.Release()
	t.ExitCode = &code
	w.guardCheck(ctx, t, checkOwn, o.Stderr)
	capErr := w.captureLocked(ctx, t, "")
	switch {
	case runErr != nil:
		msg := runErr.Error()
		t.State, t.Error = StateFailed, &msg
	case capErr != nil:
		msg := "capturing the result: " + capErr.Error()
		t.State, t.Error = StateFailed, &msg
	case code != 0:
		msg := fmt.Sprintf("the command exited with status %d", code)
		t.State, t.Error = StateFailed, &msg
	default:
		t.State = StateReady
	}
	if err := w.Save(t); err != nil {
		return t, code, err
	}
	if capErr != nil {
		return t, code, fmt.Errorf("capturing the result of %s: %w", t.ID, capErr)
	}
	return t, code, runErr
}

// taskToRun returns the task a run works on, taking a snapshot when id is
// "". The workspace lock is held.
func (w *Workspace) taskToRun(ctx context.Context, id, note string) (*Task, error) {
	if id == "" {
		return w.snapshotLocked(ctx, note)
	}
	t, err := w.loadIdle(id, "cannot run in "+id)
	if err != nil {
		return nil, err
	}
	switch t.State {
	case StateSnapshotted, StatePrepared, StateReady, StateFailed:
		return t, nil
	}
	return nil, &RefusedError{
		What:    "cannot run in " + id,
		Reasons: []string{fmt.Sprintf("it is %s, and running again would change a result that was already used", StateLabel(t.State))},
		Next:    "Start a fresh task from the current workspace: git nudge run -- CMD",
	}
}

// runCommand runs the task's command in dir with its output shown and
// kept in logs/<id>/run.log.
func (w *Workspace) runCommand(t *Task, dir string, o RunOptions) (int, error) {
	logPath := filepath.Join(w.LogDir(t.ID), "run.log")
	log, err := OpenBoundedLog(logPath, LogLimit)
	if err != nil {
		return 127, err
	}
	stdout, stderr := io.Writer(log), io.Writer(log)
	if o.Stdout != nil {
		stdout = io.MultiWriter(o.Stdout, log)
	}
	if o.Stderr != nil {
		stderr = io.MultiWriter(o.Stderr, log)
	}
	code, err := child{
		argv: o.Command, dir: dir, env: w.childEnv(o.Environ, t, dir),
		stdin: o.Stdin, stdout: stdout, stderr: stderr,
		signals: o.Signals, skip: o.Skip, group: o.Group,
	}.run()
	if err != nil {
		fmt.Fprintf(log, "git-nudge: %v\n", err)
	}
	if cerr := log.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return code, err
}
