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
	// Notify, when set, is told about the baseline checkpoint.
	Notify func(CheckpointResult)
}

// RunActiveRefusal refuses a second run.
type RunActiveRefusal struct{ PID int }

func (e *RunActiveRefusal) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = fmt.Sprintf("process %d", e.PID)
	}
	return fmt.Sprintf("a run is already active (%s holds .autodev/run.lock); wait for it to end or stop it, then try again", who)
}

// Run runs a command as an autodev run (SPEC 3.5): it holds run.lock, takes
// a baseline checkpoint when the tree is dirty, records the state as
// running and, when the command ends, idle (exit 0) or error. It returns
// the command's exit status.
func (ws *Workspace) Run(ctx context.Context, req RunRequest) (int, error) {
	if active, pid, err := ws.RunActive(); err != nil {
		return 0, err
	} else if active {
		return 0, &RunActiveRefusal{PID: pid}
	}
	if err := ws.ensureDir(); err != nil {
		return 0, err
	}
	rl, err := journal.Acquire(ctx, ws.RunLockPath(), 200*time.Millisecond, "git-autodev run")
	if err != nil {
		var le *journal.LockedError
		if errors.As(err, &le) {
			return 0, &RunActiveRefusal{PID: journal.HolderPID(ws.RunLockPath())}
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
	code, runErr := Exec(req)
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
func Exec(req RunRequest) (int, error) {
	if len(req.Args) == 0 {
		return 2, errors.New("no command given: git autodev run [--mode MODE] [--task ID] -- CMD [ARG...]")
	}
	return proc.Run(proc.Spec{Argv: req.Args, Dir: req.Dir, Stdin: req.Stdin, Stdout: req.Stdout,
		Stderr: req.Stderr, Signals: req.Signals, Skip: req.Skip})
}
