package autodev

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/proc"
)

// RunRequest is one `git autodev run`.
type RunRequest struct {
	Args    []string // the command and its arguments
	Mode    *string
	Task    *string
	Dir     string // where the command runs
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	Signals <-chan os.Signal     // forwarded to the command while it runs
	Skip    func(os.Signal) bool // signals not to forward (nil: forward all)
	Group   bool                 // run CMD in its own process group (see proc.Spec)
	// Notify, when set, is told about the baseline checkpoint.
	Notify func(CheckpointResult)
}

// RunActiveError refuses what cannot happen while a run holds
// .autodev/run.lock: a second run, or a restore (Restore set).
type RunActiveError struct {
	PID  int
	Gone bool // process PID has ended; the command it started holds the lock
	// Restore is set when a restore was refused: the refusal says so.
	Restore bool
}

func (e *RunActiveError) Error() string {
	if e.Restore {
		return "Stop the run before restoring — restore resets the project tree."
	}
	who := "another process"
	switch {
	case e.PID > 0 && e.Gone:
		who = fmt.Sprintf("the command started by git-autodev process %d, which has ended,", e.PID)
	case e.PID > 0:
		who = fmt.Sprintf("process %d", e.PID)
	}
	return fmt.Sprintf("a run is already active (%s holds .autodev/run.lock); wait for it to end or stop it, then try again", who)
}

// Run runs a command as an autodev run: it holds run.lock, takes
// a baseline checkpoint when the tree is dirty, records the state as
// running and, when the command ends, idle (exit 0) or error. It returns
// the command's exit status.
func (ws *Workspace) Run(ctx context.Context, req RunRequest) (int, error) {
	if active, pid, err := ws.RunActive(); err != nil {
		return 0, err
	} else if active {
		return 0, &RunActiveError{PID: pid, Gone: proc.Gone(pid)}
	}
	if err := ws.ensureDir(); err != nil {
		return 0, err
	}
	// CMD inherits the locked descriptor: if this process is killed, the
	// run stays active (restore refuses) while CMD, or anything it started
	// that kept the descriptor, still runs.
	rl, err := journal.AcquireInheritable(ctx, ws.RunLockPath(), 200*time.Millisecond, journal.VersionNote("git-autodev run"))
	if err != nil {
		var le *journal.LockedError
		if errors.As(err, &le) {
			pid := journal.HolderPID(ws.RunLockPath())
			return 0, &RunActiveError{PID: pid, Gone: proc.Gone(pid)}
		}
		return 0, err
	}
	defer rl.Release()
	st, err := ws.LoadState()
	if err != nil {
		return 0, err
	}
	cp, err := ws.Checkpoint(ctx, CheckpointRequest{Baseline: true, Task: req.Task, Mode: req.Mode})
	if err != nil {
		return 0, fmt.Errorf("baseline checkpoint: %w; the command was not run", err)
	}
	if req.Notify != nil {
		req.Notify(cp)
	}
	pid := os.Getpid()
	st.Status, st.PID, st.Mode, st.CurrentTask = StatusRunning, &pid, nonEmpty(req.Mode), nonEmpty(req.Task)
	if err := ws.saveRunState(st); err != nil {
		return 0, err
	}
	code, runErr := execRun(req, rl.File())
	return code, ws.finishRun(code, runErr)
}

// saveRunState writes the running state under .autodev/lock.
func (ws *Workspace) saveRunState(st State) error {
	lk, err := ws.lock(context.Background(), "run")
	if err != nil {
		return err
	}
	defer lk.Release()
	return ws.saveState(st)
}

// finishRun records how the run ended. A state another command set to
// error during the run (park) stays error.
func (ws *Workspace) finishRun(code int, runErr error) error {
	// The context may be cancelled by the signal that ended the command;
	// the state must still be written.
	lk, err := ws.lock(context.Background(), "run")
	if err != nil {
		return errors.Join(runErr, err)
	}
	defer lk.Release()
	st, err := ws.LoadState()
	if err != nil {
		return errors.Join(runErr, err)
	}
	st.PID = nil
	if code == 0 && runErr == nil && st.Status != StatusError {
		st.Status = StatusIdle
		st.CurrentTask = nil
	} else {
		st.Status = StatusError
	}
	return errors.Join(runErr, ws.saveState(st))
}

// Exec runs req.Args with the given streams in req.Dir, forwarding the
// signals that arrive on req.Signals (see proc.Run for the exit status).
func Exec(req RunRequest) (int, error) { return execRun(req, nil) }

// execRun is Exec with the run lock's file (nil: none) passed on to the
// command as descriptor 3.
func execRun(req RunRequest, runLock *os.File) (int, error) {
	var extra []*os.File
	if runLock != nil {
		extra = []*os.File{runLock}
	}
	if len(req.Args) == 0 {
		return 2, errors.New("no command given: git autodev run [--mode MODE] [--task ID] -- CMD [ARG...]")
	}
	return proc.Run(proc.Spec{Argv: req.Args, Dir: req.Dir, Stdin: req.Stdin, Stdout: req.Stdout,
		Stderr: req.Stderr, Signals: req.Signals, Skip: req.Skip, Group: req.Group, ExtraFiles: extra,
		Reap: true})
}

// fromRun fills the request's missing task and mode from state.json when
// a run is active (state running, run.lock held): a checkpoint the run's
// command makes belongs to the run. The caller holds .autodev/lock, under
// which the run writes its state.
func (ws *Workspace) fromRun(req CheckpointRequest) (CheckpointRequest, error) {
	if req.Task != nil && req.Mode != nil {
		return req, nil
	}
	if active, _, err := ws.RunActive(); err != nil || !active {
		return req, err
	}
	st, err := ws.LoadState()
	if err != nil || st.Status != StatusRunning {
		return req, err
	}
	if req.Task == nil {
		req.Task = nonEmpty(st.CurrentTask)
	}
	if req.Mode == nil {
		req.Mode = nonEmpty(st.Mode)
	}
	return req, nil
}
