package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// QueueOptions is a `git nudge queue`.
type QueueOptions struct {
	Note    string
	Command []string
	// On is the runner it will run on ("" or "local": this machine).
	On string
}

// Queue records a pending task that will run Command once an executor
// (Work) gets to it. Its id is allocated now, like a snapshot's, by a
// create-only update of refs/nudgethis/snapshots/<id>; until the task
// starts that ref holds a placeholder (HEAD's commit, or an empty root
// commit on an unborn branch), which the snapshot then replaces.
func Queue(ctx context.Context, ws *nudge.Workspace, o QueueOptions) (*nudge.Task, error) {
	w := workspace{ws}
	if len(o.Command) == 0 {
		return nil, errors.New("no command to queue: git nudge queue -- CMD [ARG...]")
	}
	l, err := w.Lock(ctx, "git-nudge queue")
	if err != nil {
		return nil, err
	}
	defer l.Release()
	r := w.Repo
	head, err := r.Head(ctx)
	if err != nil {
		return nil, err
	}
	placeholder := head.Commit
	if placeholder == "" {
		tree, err := r.WriteEmptyTree(ctx)
		if err != nil {
			return nil, err
		}
		if placeholder, err = r.CommitTree(ctx, git.CommitRequest{Tree: tree, Message: "nudge pending task", Author: nudge.Identity, Committer: nudge.Identity}); err != nil {
			return nil, err
		}
	}
	next, err := w.NextTaskNumber()
	if err != nil {
		return nil, err
	}
	id, err := refs.Task.AllocateFrom(ctx, r, placeholder, next)
	if err != nil {
		return nil, err
	}
	t := &nudge.Task{
		ID: id, State: nudge.StatePending, Note: o.Note, Created: w.Now().UTC(),
		Workspace: r.WorkTree, Command: o.Command,
		// The branch it was queued on, until work takes its snapshot.
		Branch: nudge.OptStr(head.Branch),
	}
	if o.On != "local" {
		t.Runner = o.On
	}
	if err := w.Save(t); err != nil {
		_ = r.DeleteRef(context.WithoutCancel(ctx), refs.Task.Ref(id), placeholder)
		return nil, err
	}
	return t, nil
}

// errNotPending is taskToRun's answer when Work asks for a task that is
// no longer pending (dropped, or started by someone else).
var errNotPending = errors.New("no longer pending")

// WorkOptions says how Work runs the pending tasks.
type WorkOptions struct {
	// Max is how many tasks run at once (default 1).
	Max int
	// Environ is the environment the tasks' programs start from.
	Environ []string
	// Stdout and Stderr show the tasks' output live when Max is 1 (it
	// is kept in their logs either way); nil shows nothing.
	Stdout, Stderr io.Writer
	// NoValidate skips the nudge.validate commands.
	NoValidate bool
	// Events, when set, is told as each task starts and ends. Calls may
	// come from several goroutines at once (Max > 1).
	Events func(WorkEvent)
	// Watch, when more than zero, keeps Work going after the queue is
	// empty: it looks for newly queued tasks every Watch until ctx is
	// cancelled, holding the executor lock throughout (a server).
	Watch time.Duration
	// What names the executor in its lock note ("git-nudge work",
	// "git-nudge dashboard"); "" is "git-nudge work".
	What string
}

// WorkEvent is a step of Work: Kind "start" (the task was claimed),
// "done" (it ran: see Task, ExitCode and Err), "skipped" (it was no
// longer pending when its turn came: dropped meanwhile) or "again" (the
// workspace lock stayed held while another task of the call ran, so it
// did not start: still pending, it is tried again; Err says why).
type WorkEvent struct {
	Kind     string
	ID       string
	Task     *nudge.Task
	ExitCode int
	Err      error
}

// WorkReport is what Work did, a line per task in the order they started.
type WorkReport struct {
	Ran         []WorkedTask `json:"ran"`
	Interrupted bool         `json:"interrupted"`
	Pending     int          `json:"pending"` // tasks left pending at the end
}

// WorkedTask is one task Work took.
type WorkedTask struct {
	ID       string  `json:"id"`
	State    string  `json:"state"` // the task's state after the run, or "skipped"
	ExitCode *int    `json:"exit_code"`
	Error    *string `json:"error"`
}

// ExecutorBusyError refuses a second executor for a workspace.
type ExecutorBusyError struct{ Holder string }

func (e *ExecutorBusyError) Error() string {
	return fmt.Sprintf("another process already runs this workspace's pending tasks (%s)", e.Holder)
}

// AcquireExecutor takes the workspace's executor lock (work.lock) without
// waiting, recording what and the binary's version (journal.BinaryVersion)
// in its note. Only one process runs a workspace's pending tasks at a
// time.
func AcquireExecutor(ctx context.Context, ws *nudge.Workspace, what string) (*journal.Lock, error) {
	w := workspace{ws}
	if what == "" {
		what = "git-nudge work"
	}
	path := filepath.Join(w.Dir, nudge.WorkLockName)
	if err := rejectSymlink(w, nudge.WorkLockName); err != nil {
		return nil, err
	}
	l, err := journal.Acquire(ctx, path, 0, journal.VersionNote(what))
	if err != nil {
		var le *journal.LockedError
		if errors.As(err, &le) {
			return nil, &nudge.RefusedError{
				What:    "cannot run the pending tasks",
				Reasons: []string{(&ExecutorBusyError{Holder: le.Holder}).Error()},
				Next:    "It runs them all; git nudge list shows their progress. Stop it first to run them here.",
			}
		}
		return nil, err
	}
	return l, nil
}

// Work runs the workspace's pending tasks, oldest first, until none is
// left (tasks queued meanwhile included), o.Max at a time: each is
// snapshotted from the workspace as it is when it starts, then prepared,
// run, captured and validated exactly as git nudge run does. It holds the
// executor lock (AcquireExecutor) throughout. A task whose command cannot
// start is failed with the reason and the next one runs. Cancelling ctx
// stops the running tasks with their process groups (SIGTERM, then
// SIGKILL five seconds later); their results are captured and they end
// failed, and the tasks not started stay pending.
func Work(ctx context.Context, ws *nudge.Workspace, o WorkOptions) (*WorkReport, error) {
	w := workspace{ws}
	lock, err := AcquireExecutor(ctx, w.Workspace, o.What)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	// Tasks a killed executor left half done are settled first.
	if l, err := w.Lock(ctx, "git-nudge work"); err != nil {
		return nil, err
	} else {
		l.Release()
	}
	n := max(o.Max, 1)
	var (
		mu       sync.Mutex
		claimed  = map[string]bool{}
		running  int // tasks of this call between their start and done events
		report   = &WorkReport{Ran: []WorkedTask{}}
		firstErr error
	)
	// idleDir is the tasks folder's key when a look found nothing to
	// claim, idleAt when that look began: while the folder keeps that key
	// (a record is written, made or removed by a rename in it, which
	// changes the folder's times) and the key is older than journal.Racy,
	// nothing changed and the records need not be looked at again. An
	// idle executor then costs one stat a second.
	var (
		idleDir journal.FileKey
		idleAt  time.Time
		idle    bool
	)
	claim := func() (string, error) {
		mu.Lock()
		defer mu.Unlock()
		if ctx.Err() != nil || firstErr != nil {
			return "", nil
		}
		at := time.Now()
		dir, dirOK := journal.StatKey(w.TasksDir())
		if idle && dirOK && dir == idleDir && dir.Settled(idleAt) {
			return "", nil
		}
		idle = false
		pending, err := w.Pending()
		if err != nil {
			return "", err
		}
		for _, t := range pending {
			if !claimed[t.ID] {
				claimed[t.ID] = true
				return t.ID, nil
			}
		}
		idle, idleDir, idleAt = dirOK, dir, at
		return "", nil
	}
	event := func(e WorkEvent) {
		if o.Events != nil {
			o.Events(e)
		}
	}
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				id, err := claim()
				if err != nil {
					mu.Lock()
					firstErr = errors.Join(firstErr, err)
					mu.Unlock()
					return
				}
				if id == "" {
					if o.Watch <= 0 {
						return
					}
					select {
					case <-ctx.Done():
						return
					case <-time.After(o.Watch):
					}
					continue
				}
				event(WorkEvent{Kind: "start", ID: id})
				mu.Lock()
				running++
				mu.Unlock()
				t, code, err := w.workOne(ctx, id, o, n == 1)
				mu.Lock()
				running--
				// The workspace lock held for the whole wait while
				// another task of this call ran (its snapshot or record
				// on a busy machine): nothing of this task started, it
				// is still pending, and it goes back in line.
				var locked *journal.LockedError
				again := err != nil && t == nil && running > 0 && ctx.Err() == nil && errors.As(err, &locked)
				if again {
					delete(claimed, id)
					idle = false
				}
				mu.Unlock()
				if again {
					event(WorkEvent{Kind: "again", ID: id, Err: err})
					continue
				}
				wt := WorkedTask{ID: id}
				switch {
				case errors.Is(err, errNotPending):
					wt.State = "skipped"
					event(WorkEvent{Kind: "skipped", ID: id})
				default:
					if t != nil {
						wt.State = t.State
						wt.ExitCode, wt.Error = t.ExitCode, t.Error
					}
					if err != nil && wt.Error == nil {
						msg := err.Error()
						wt.Error = &msg
					}
					event(WorkEvent{Kind: "done", ID: id, Task: t, ExitCode: code, Err: err})
					var re *nudge.RefusedError
					if err != nil && t == nil && !errors.As(err, &re) {
						// Not the task's own failure (a lock, a journal):
						// stop rather than fail every other task the same way.
						mu.Lock()
						firstErr = errors.Join(firstErr, fmt.Errorf("%s: %w", id, err))
						mu.Unlock()
					}
				}
				mu.Lock()
				report.Ran = append(report.Ran, wt)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	report.Interrupted = ctx.Err() != nil
	if left, err := w.Pending(); err == nil {
		report.Pending = len(left)
	}
	return report, firstErr
}

// workOne runs pending task id through Run. Cancelling ctx sends its
// process group SIGTERM, then SIGKILL.
func (w workspace) workOne(ctx context.Context, id string, o WorkOptions, live bool) (*nudge.Task, int, error) {
	sigs := make(chan os.Signal, 4)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-stop:
			return
		case <-ctx.Done():
		}
		sigs <- syscall.SIGTERM
		select {
		case <-stop:
		case <-time.After(5 * time.Second):
			sigs <- syscall.SIGKILL
		}
	}()
	ro := RunOptions{
		TaskID: id, pending: true, Environ: o.Environ,
		Signals: sigs, Group: true, NoValidate: o.NoValidate,
	}
	if live {
		ro.Stdout, ro.Stderr = o.Stdout, o.Stderr
	}
	return Run(ctx, w.Workspace, ro)
}

// rejectSymlink refuses a state file of .nudgethis that is a symlink or
// not a file.
func rejectSymlink(w workspace, name string) error {
	return worktree.RealFile(w.Repo.WorkTree, nudge.StateDirName+"/"+name)
}
