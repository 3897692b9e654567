package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/review"
	"github.com/nudgethis/git-nudge/internal/nudge/runlog"
	"github.com/nudgethis/git-nudge/internal/nudge/take"
)

// RunOptions describes a `git nudge run`.
type RunOptions struct {
	TaskID  string   // "" takes a snapshot and starts a new task
	NoSetup bool     // skip nudge.setup when a worktree is made
	Command []string // the program and its arguments
	Note    string   // note of the snapshot taken when TaskID is ""
	// Dir is the caller's current directory: CMD starts in the task
	// worktree's folder at the same place ("" or a folder outside the
	// work tree: the worktree's top).
	Dir string
	// Sandbox runs CMD confined (see sandboxed); nil follows git config
	// nudge.sandbox. Where that is impossible the run is refused.
	Sandbox *bool

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

	// KeepRefs keeps the refs an unsandboxed CMD made or moved outside
	// its own where it left them (they are still listed); otherwise they
	// are moved aside (nudge.Workspace.QuarantineRefs).
	KeepRefs bool

	// NoValidate skips the nudge.validate commands after the capture
	// (recorded as skipped).
	NoValidate bool

	// On names the runner the command runs on (docs/RUNNERS.md); ""
	// follows git config nudge.runner, and "local" (or nothing
	// configured) runs it on this machine. A pending task runs on the
	// runner it was queued for.
	On string
	// Attempt is set in NUDGE_ATTEMPT and recorded (run --attempts).
	Attempt int
	// KeepWorktree keeps the worktree once the task is finished
	// (--keep-worktree; recorded in the task).
	KeepWorktree bool

	// pending: TaskID must be a pending task (Work), whose own command
	// runs; another state is errNotPending.
	pending bool
	// siblings, for one of run --attempts: the outcome is recorded only
	// once every attempt's command has started (or its start failed).
	siblings *startGate
	// started is called once the command has started.
	started func()
}

// startGate holds back the records of the attempts of one run
// --attempts until each attempt has started its command or given up: a
// quick attempt's capture, which holds the workspace lock, then never
// stands between a slower sibling and the start of its command.
type startGate struct {
	wg sync.WaitGroup
}

// newStartGate is the gate of n attempts.
func newStartGate(n int) *startGate {
	g := &startGate{}
	g.wg.Add(n)
	return g
}

// arrival returns the function that tells g this attempt has started
// its command or will not; calls after the first do nothing. A nil gate
// gives a function that does nothing.
func (g *startGate) arrival() func() {
	if g == nil {
		return func() {}
	}
	var once sync.Once
	return func() { once.Do(g.wg.Done) }
}

// wait returns once every attempt has arrived.
func (g *startGate) wait() {
	if g != nil {
		g.wg.Wait()
	}
}

// Run runs a command in a task's worktree (making the task and its
// worktree first when needed), keeps its output in logs/<id>/run.log
// (bounded) and captures the result. The task ends ready when the command
// succeeded and failed otherwise; its result is captured either way. The
// command's exit status is returned (127 when it could not be started).
func Run(ctx context.Context, ws *nudge.Workspace, o RunOptions) (*nudge.Task, int, error) {
	w := workspace{ws}
	if len(o.Command) == 0 && !o.pending {
		return nil, 0, errors.New("no command to run: git nudge run -- CMD [ARG...]")
	}
	if err := w.Guard().CheckModes("cannot run"); err != nil {
		return nil, 0, err
	}
	var runner *runnerPlan
	if !o.pending {
		name, err := RunnerName(ctx, w.Workspace, o.On)
		if err != nil {
			return nil, 0, err
		}
		if runner, err = w.planRunner(ctx, name); err != nil {
			return nil, 0, err
		}
	}
	sandbox, err := w.planRunnerSandbox(ctx, runner, o.Sandbox, o.Environ)
	if err != nil {
		return nil, 0, err
	}
	arrive := o.siblings.arrival()
	defer arrive()
	o.started = arrive
	r := &taskRun{w: w, o: o, runner: runner, sandbox: sandbox}
	if err := r.take(ctx); err != nil {
		return r.t, 0, err
	}
	defer r.hold.Release()
	if err := r.worktree(ctx); err != nil {
		return r.t, 0, err
	}
	refsBefore, err := r.markRunning(ctx)
	if err != nil {
		return r.t, 0, err
	}

	began := time.Now()
	code, runErr := w.runCommand(ctx, r.t, r.dir, r.o, r.hold.File(), r.sandbox, r.runner)
	secs := time.Since(began).Seconds()

	// The outcome is recorded even after an interrupt, and waits for the
	// lock longer than a command about to begin would: sibling tasks of
	// the same work --max or attempts may hold it in turn. The siblings
	// of run --attempts start their commands first.
	arrive()
	o.siblings.wait()
	ctx = context.WithoutCancel(ctx)
	if r.l, err = w.LockWithin(ctx, "git-nudge run", nudge.RecordWait); err != nil {
		return r.t, code, err
	}
	defer func() { r.l.Release() }()
	return r.t, code, r.record(ctx, code, secs, runErr, refsBefore)
}

// taskRun is one Run: its options, where the command runs, and the task
// with its locks once taken.
type taskRun struct {
	w       workspace
	o       RunOptions
	runner  *runnerPlan  // nil: on this machine
	sandbox *sandboxPlan // nil: not confined here
	t       *nudge.Task
	l       *journal.Lock // the workspace lock, while held
	hold    *journal.Lock // the task's own lock
	dir     string        // the folder the command starts in
}

// take takes the workspace lock (r.l) and the task, a new snapshot or
// the one named, with its own lock (r.hold). A pending task runs its own
// command on the runner it was queued for; when that runner cannot be
// planned the task fails with the reason. On an error no lock is held.
func (r *taskRun) take(ctx context.Context) error {
	w, o := r.w, &r.o
	l, err := w.Lock(ctx, "git-nudge run")
	if err != nil {
		return err
	}
	if o.pending {
		// Held before the snapshot: a task killed from here on is
		// never left looking untouched (see take.Into).
		if r.hold, err = w.HoldTask(ctx, o.TaskID); err != nil {
			l.Release()
			return err
		}
	}
	t, err := w.taskToRun(ctx, o.TaskID, o.Note, o.pending)
	if err != nil {
		if r.hold != nil {
			r.hold.Release()
			if errors.Is(err, errNotPending) {
				if _, lerr := w.Load(o.TaskID); lerr != nil {
					_ = os.Remove(w.RunLockPath(o.TaskID))
				}
			}
		}
		l.Release()
		return err
	}
	if !o.pending {
		if r.hold, err = w.HoldTask(ctx, t.ID); err != nil {
			l.Release()
			return err
		}
		r.t, r.l = t, l
		return nil
	}
	r.t, r.l = t, l
	o.Command = t.Command
	if t.Runner == "" {
		return nil
	}
	if r.runner, err = w.planRunner(ctx, t.Runner); err == nil {
		r.sandbox, err = w.planRunnerSandbox(ctx, r.runner, o.Sandbox, o.Environ)
	}
	if err != nil {
		msg := err.Error()
		t.State, t.Error = nudge.StateFailed, &msg
		if serr := w.Save(t); serr != nil {
			err = errors.Join(err, serr)
		}
		r.hold.Release()
		l.Release()
	}
	return err
}

// worktree gives the task a worktree when it has none (brought back at
// its result, or made and set up, the workspace lock released
// meanwhile), and finds the folder the command starts in. On an error
// the workspace lock is no longer held.
func (r *taskRun) worktree(ctx context.Context) error {
	w, o, t := r.w, r.o, r.t
	if o.KeepWorktree {
		t.KeepWorktree = true
	}
	var err error
	if w.resultWithoutWorktree(t) {
		// Finished, its worktree given back: it comes back at the
		// result, and the command goes on from there.
		if r.l, err = w.RestoreHeld(ctx, t, r.l, o.Stderr, false); err != nil {
			if r.l != nil {
				r.l.Release()
			}
			return err
		}
	} else if !w.HasWorktree(t) {
		so := StartOptions{NoSetup: o.NoSetup, Environ: o.Environ, Output: o.Stderr, hold: r.hold.File(), signals: o.Signals, run: true}
		// The lock the preparation's outcome was recorded under stays
		// held for the record of the task running.
		if r.l, err = w.prepareHeld(ctx, t, r.l, so); err != nil {
			return err
		}
		if r.runner != nil {
			r.runner.fresh = true
		}
		nudge.FaultPoint("run-after-prepare")
		if err := ctx.Err(); err != nil {
			r.l.Release()
			return err
		}
	}
	var moved string
	r.dir, moved = w.commandDir(*t.Worktree, o.Dir)
	if moved != "" && o.Stderr != nil {
		fmt.Fprintf(o.Stderr, "git nudge: %s\n", moved)
	}
	return nil
}

// markRunning records the task running this process's command, notes
// the refs as they are before it (quarantine), and releases the
// workspace lock.
func (r *taskRun) markRunning(ctx context.Context) (refsBefore map[string]string, _ error) {
	w, o, t := r.w, r.o, r.t
	pid := os.Getpid()
	t.State = nudge.StateRunning
	t.Command = o.Command
	t.ExitCode = nil
	t.Error = nil
	t.PID, t.CommandPID = &pid, nil
	t.Sandbox = r.sandbox != nil || (r.runner != nil && r.runner.sandbox)
	t.Runner = ""
	if r.runner != nil {
		t.Runner = r.runner.name
	}
	if o.Attempt > 0 {
		t.Attempt = o.Attempt
	}
	t.RefChanges = nil
	refsBefore = w.Guard().RefsBeforeRun(ctx, r.sandbox != nil, o.Stderr)
	err := w.Save(t)
	r.l.Release()
	return refsBefore, err
}

// record records the command's outcome (the workspace lock held): the
// guard's check, the result captured, the refs it moved quarantined,
// the state, then validation when it succeeded, and the worktree given
// back when nothing needs it. runErr is the command's own error.
func (r *taskRun) record(ctx context.Context, code int, secs float64, runErr error, refsBefore map[string]string) error {
	w, o, t := r.w, r.o, r.t
	t.ExitCode = &code
	t.RunSeconds = &secs
	t.PID, t.CommandPID = nil, nil
	w.GuardCheck(ctx, t, nudge.CheckOwn, o.Stderr)
	capErr := w.CaptureLocked(ctx, t, "")
	if refsBefore != nil {
		t.RefChanges = w.QuarantineRefs(ctx, t, refsBefore, o.KeepRefs, o.Stderr)
	}
	switch {
	case runErr != nil:
		msg := runErr.Error()
		t.State, t.Error = nudge.StateFailed, &msg
	case capErr != nil:
		msg := "capturing the result: " + capErr.Error()
		t.State, t.Error = nudge.StateFailed, &msg
	case code != 0:
		msg := fmt.Sprintf("the command exited with status %d", code)
		t.State, t.Error = nudge.StateFailed, &msg
	default:
		t.State = nudge.StateReady
	}
	switch {
	case capErr != nil:
	case o.NoValidate:
		w.skipValidation(ctx, t, "--no-validate")
	case t.State != nudge.StateReady:
		w.skipValidation(ctx, t, "the command failed")
	}
	if err := w.Save(t); err != nil {
		return err
	}
	if capErr == nil && !o.NoValidate && t.State == nudge.StateReady {
		var err error
		if r.l, err = w.validateHeld(ctx, t, r.l, r.hold.File(), ValidateOptions{Environ: o.Environ, Output: o.Stderr, Signals: o.Signals}); err != nil {
			return err
		}
	}
	if capErr != nil {
		return fmt.Errorf("capturing the result of %s: %w", t.ID, capErr)
	}
	if runErr == nil {
		// Captured under this lock, and nothing ran there since unless
		// the validation commands did.
		fresh := t.Validation == nil || t.Validation.State == nudge.ValidationSkipped
		w.ReleaseLocked(ctx, t, fresh, nil)
	}
	return runErr
}

// taskToRun returns the task a run works on, taking a snapshot when id is
// "". The workspace lock is held.
func (w workspace) taskToRun(ctx context.Context, id, note string, pending bool) (*nudge.Task, error) {
	if id == "" {
		return take.SnapshotLocked(ctx, w.Workspace, note)
	}
	if pending {
		// The caller holds the task's lock already.
		t, err := w.Load(id)
		var unknown *nudge.UnknownTaskError
		switch {
		case errors.As(err, &unknown):
			return nil, errNotPending
		case err != nil:
			return nil, err
		case t.State != nudge.StatePending:
			return nil, errNotPending
		}
		snap, err := take.Into(ctx, w.Workspace, t.Note, t)
		if err != nil {
			// The task fails with the reason; the queue goes on.
			msg := "taking the snapshot: " + err.Error()
			t.State, t.Error = nudge.StateFailed, &msg
			if serr := w.Save(t); serr != nil {
				return nil, errors.Join(err, serr)
			}
			return nil, &nudge.RefusedError{What: "cannot start " + id, Reasons: []string{msg}}
		}
		return snap, nil
	}
	t, err := w.loadIdle(id, "cannot run in "+id)
	if err != nil {
		return nil, err
	}
	switch t.State {
	case nudge.StatePending:
		return nil, &nudge.RefusedError{
			What:    "cannot run in " + id,
			Reasons: []string{"it is pending: its command runs when git nudge work gets to it"},
			Next:    fmt.Sprintf("git nudge work runs the pending tasks; git nudge drop %s removes it from the queue.", id),
		}
	case nudge.StateReady, nudge.StateFailed:
		// One whose worktree was given back gets it back at its result.
		return t, nil
	case nudge.StateSnapshotted, nudge.StatePrepared:
		return t, nil
	}
	return nil, &nudge.RefusedError{
		What:    "cannot run in " + id,
		Reasons: []string{fmt.Sprintf("it is %s, and running again would change a result that was already used", nudge.StateLabel(t.State))},
		Next:    "Start a fresh task from the current workspace: git nudge run -- CMD",
	}
}

// runCommand runs the task's command in dir with its output shown and
// kept in logs/<id>/run.log. The command inherits the task's lock file
// (hold), and its pid is recorded in the task once it runs.
func (w workspace) runCommand(ctx context.Context, t *nudge.Task, dir string, o RunOptions, hold *os.File, sandbox *sandboxPlan, runner *runnerPlan) (int, error) {
	logPath := filepath.Join(w.LogDir(t.ID), "run.log")
	log, err := runlog.Open(logPath, runlog.Limit)
	if err != nil {
		return 127, err
	}
	stdout, stderr := io.Writer(log), io.Writer(log)
	if o.Stdout != nil {
		stdout = io.MultiWriter(&lenient{w: o.Stdout}, log)
	}
	if o.Stderr != nil {
		stderr = io.MultiWriter(&lenient{w: o.Stderr}, log)
	}
	env := w.childEnv(o.Environ, t, dir)
	reviewFile, err := review.WriteFile(ctx, w.Workspace, t)
	if err != nil {
		log.Close()
		return 127, fmt.Errorf("%w: writing the review comments for %s: %v", ErrCommandNotStarted, ReviewEnv, err)
	}
	if reviewFile != "" {
		env = append(env, ReviewEnv+"="+reviewFile)
	}
	if o.Attempt > 0 {
		env = append(env, "NUDGE_ATTEMPT="+strconv.Itoa(o.Attempt))
	}
	c := child{
		argv: o.Command, dir: dir, env: env,
		stdin: o.Stdin, stdout: stdout, stderr: stderr,
		signals: o.Signals, skip: o.Skip, group: o.Group,
		lock: hold, started: func(pid int) {
			if o.started != nil {
				o.started()
			}
			w.recordCommandPID(ctx, t, pid)
		},
	}
	if sandbox != nil {
		var done func() []string
		if c, done, err = w.sandboxed(ctx, sandbox, t.ID, *t.Worktree, c); err != nil {
			log.Close()
			return 127, fmt.Errorf("%w: %v", ErrCommandNotStarted, err)
		}
		defer func() {
			if put := done(); len(put) > 0 && o.Stderr != nil {
				fmt.Fprintf(o.Stderr, "git nudge: the command changed %s, which git reads as configuration or as the way to the repository; put back as it was before the run\n", strings.Join(put, ", "))
			}
		}()
		fmt.Fprint(stderr, sandbox.fallbackGaps())
		fmt.Fprintf(stderr, "git nudge: %s\n", sandbox.describe())
	}
	var finish func(int) (int, error)
	if runner != nil {
		if c, finish, err = w.onRunner(ctx, runner, t, c, log); err != nil {
			log.Close()
			return 127, fmt.Errorf("%w: %v", ErrCommandNotStarted, err)
		}
		fmt.Fprintf(stderr, "git nudge: %s\n", runner.describe())
		if runner.note != "" {
			fmt.Fprintf(stderr, "git nudge: %s\n", runner.note)
		}
	}
	code, err := c.run()
	if finish != nil {
		var ferr error
		if code, ferr = finish(code); ferr != nil && err == nil {
			err = ferr
		}
	}
	if err != nil {
		fmt.Fprintf(log, "git nudge: %v\n", err)
	}
	if cerr := log.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return code, err
}

// recordCommandPID records the pid of t's running command, so that list
// can name it when git-nudge itself is gone. Best effort: a workspace
// lock that cannot be had leaves the record without it.
func (w workspace) recordCommandPID(ctx context.Context, t *nudge.Task, pid int) {
	l, err := w.Lock(context.WithoutCancel(ctx), "git-nudge run")
	if err != nil {
		return
	}
	defer l.Release()
	t.CommandPID = &pid
	_ = w.Save(t)
}

// commandDir is the folder of worktree where a command started from
// callerDir begins: the folder at the same place relative to the top of
// the work tree as callerDir, so that ./script.sh means what it means in
// the workspace. When that folder is not in the worktree (an ignored or
// empty folder, which a snapshot does not carry), the command starts in
// the nearest folder above it that is, and moved says so.
func (w workspace) commandDir(worktree, callerDir string) (dir, moved string) {
	if callerDir == "" {
		return worktree, ""
	}
	_, rel, ok := nudge.CallerRel(w.Repo.WorkTree, callerDir)
	if !ok || rel == "." {
		return worktree, ""
	}
	parts := strings.Split(rel, string(filepath.Separator))
	if strings.EqualFold(parts[0], nudge.StateDirName) || strings.EqualFold(parts[0], ".git") {
		return worktree, ""
	}
	dir = worktree
	for i, p := range parts {
		next := filepath.Join(dir, p)
		// Only real folders: a symlink (or a file setup put there) is
		// not followed out of the worktree.
		st, err := os.Lstat(next)
		if err != nil || !st.IsDir() {
			at := "its top"
			if i > 0 {
				at = nudge.QuotePath(filepath.ToSlash(filepath.Join(parts[:i]...))) + "/"
			}
			return dir, fmt.Sprintf("%s/ is not in the task's worktree (ignored and empty folders are not part of a snapshot); the command starts at %s instead", nudge.QuotePath(filepath.ToSlash(rel)), at)
		}
		dir = next
	}
	return dir, ""
}

// lenient passes writes on to w until w fails once (a reader that went
// away: git nudge run ... | head), then drops them, never failing: the
// command's output still reaches run.log, and the command runs to its end
// and is captured, instead of the whole copy stopping at the first error.
type lenient struct {
	w      io.Writer
	failed bool
}

func (l *lenient) Write(p []byte) (int, error) {
	if !l.failed {
		if _, err := l.w.Write(p); err != nil {
			l.failed = true
		}
	}
	return len(p), nil
}
