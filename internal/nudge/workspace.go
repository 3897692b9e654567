package nudge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// StateDirName is the workspace's state folder, at the work tree's top level.
const StateDirName = refs.NudgeDir

// LockTimeout is how long a command waits for another git-nudge command of
// the same workspace to finish.
var LockTimeout = 10 * time.Second

// ErrNotRepository is the message for commands run outside a work tree.
var ErrNotRepository = errors.New("not inside a git work tree: run git nudge from a git repository's work tree (git init creates one)")

// Workspace is one work tree and its .nudgethis folder.
type Workspace struct {
	Repo *git.Repo
	Dir  string // absolute path of .nudgethis
	Now  func() time.Time
	// InTask is the task whose worktree the command was started in (the
	// workspace is then the one that owns that task), or "".
	InTask string
	// Warn receives warnings a command gives on the side (changes to the
	// shared git settings it found and put back); nil shows none.
	Warn io.Writer
	// Files, when set, is told by apply and undo which work-tree files
	// they change and what those hold (see FilesWatch).
	Files *FilesWatch
	// pendingAtLock lists the tasks whose records mentioned a pending
	// guard check when Reconcile last read every record (under the lock);
	// nil when it has not. A snapshot's guard uses it instead of reading
	// every record again.
	pendingAtLock []string
	// wantSuspects asks Reconcile to note, from the same bytes, what
	// suspectRecords needs (suspectsAtLock): a snapshot with fsmonitor
	// asks that before its git status, and reading every record again
	// costs a measurable part of it.
	wantSuspects   bool
	suspectsAtLock *suspectScan
	// readOnly is set by OpenReadOnly: a cache missing in .nudgethis
	// (quiet-records) is not created: read-only commands create no file.
	readOnly bool
}

// Open discovers the repository containing dir and prepares .nudgethis.
// Started inside a task worktree (.nudgethis/worktrees/<id>), it opens the
// workspace that owns the task.
func Open(ctx context.Context, dir string, now func() time.Time) (*Workspace, error) {
	w, err := find(ctx, dir, now)
	if err != nil {
		return nil, err
	}
	if err := w.ensureDir(); err != nil {
		return nil, err
	}
	return w, nil
}

// OpenReadOnly is Open for commands that only read (list, show, diff): it
// creates no file or folder; a workspace that never had a task simply has
// none.
func OpenReadOnly(ctx context.Context, dir string, now func() time.Time) (*Workspace, error) {
	w, err := find(ctx, dir, now)
	if err != nil {
		return nil, err
	}
	// Reading through a symlinked state folder would show another
	// workspace's (or a task's forged) records as this one's.
	for _, d := range []string{StateDirName, StateDirName + "/tasks", StateDirName + "/worktrees", StateDirName + "/logs", StateDirName + "/" + stageDirName} {
		if _, err := worktree.RealDir(w.Repo.WorkTree, d, false); err != nil {
			return nil, err
		}
	}
	w.readOnly = true
	return w, nil
}

func find(ctx context.Context, dir string, now func() time.Time) (*Workspace, error) {
	r, err := git.Discover(ctx, dir)
	if err != nil {
		switch {
		case errors.Is(err, git.ErrNotRepository):
			return nil, ErrNotRepository
		case errors.Is(err, git.ErrBare):
			return nil, fmt.Errorf("%w; git nudge works on a checked-out work tree (git worktree add makes one)", err)
		}
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	w := &Workspace{Repo: r, Dir: filepath.Join(r.WorkTree, StateDirName), Now: now}
	if owner, id := taskOwner(ctx, r); owner != nil {
		w.Repo, w.Dir, w.InTask = owner, filepath.Join(owner.WorkTree, StateDirName), id
	}
	return w, nil
}

// taskOwner returns the workspace repository that owns r when r's work
// tree is one of its task worktrees (<top>/.nudgethis/worktrees/<id>, a
// linked worktree of the same repository), and the task's id.
func taskOwner(ctx context.Context, r *git.Repo) (*git.Repo, string) {
	id := filepath.Base(r.WorkTree)
	parent := filepath.Dir(r.WorkTree)
	if !refs.Task.Valid(id) || filepath.Base(parent) != "worktrees" || filepath.Base(filepath.Dir(parent)) != StateDirName {
		return nil, ""
	}
	top := filepath.Dir(filepath.Dir(parent))
	owner, err := git.Discover(ctx, top)
	if err != nil || owner.WorkTree != top || owner.CommonDir != r.CommonDir {
		return nil, ""
	}
	return owner, id
}

// ensureDir creates .nudgethis with a .gitignore of "*" so git never sees it.
// It refuses when .nudgethis, one of its folders or its lock files is a
// symlink (or not a folder, not a file): the state would be written
// wherever the link points.
func (w *Workspace) ensureDir() error {
	for _, d := range []string{StateDirName, StateDirName + "/tasks"} {
		if _, err := worktree.RealDir(w.Repo.WorkTree, d, true); err != nil {
			return err
		}
	}
	for _, d := range []string{"worktrees", "logs", stageDirName} {
		if _, err := worktree.RealDir(w.Repo.WorkTree, StateDirName+"/"+d, false); err != nil {
			return err
		}
	}
	if err := worktree.RealFile(w.Repo.WorkTree, StateDirName+"/lock", StateDirName+"/.gitignore",
		StateDirName+"/"+journal.FormatFile, StateDirName+"/"+WorkLockName, StateDirName+"/"+ServerLockName); err != nil {
		return err
	}
	gi := filepath.Join(w.Dir, ".gitignore")
	if b, err := os.ReadFile(gi); err != nil || string(b) != "*\n" {
		if err := journal.WriteBytes(gi, []byte("*\n")); err != nil {
			return err
		}
	}
	return w.checkVersions(true)
}

// Format is the version of .nudgethis's layout and records that this
// binary writes (.nudgethis/format). A binary that finds a newer one
// changes nothing there.
const Format = 1

// ServerLockName is the lock a dashboard server holds in .nudgethis while
// it runs, with its binary version in the note (as work.lock).
const ServerLockName = "server.lock"

// checkVersions refuses when .nudgethis was written in a newer format,
// or an executor or server of another binary version runs on it; with
// write, a folder without a format file is given this binary's.
func (w *Workspace) checkVersions(write bool) error {
	if err := journal.CheckFormat(w.Dir, Format, write); err != nil {
		return err
	}
	for _, name := range []string{WorkLockName, ServerLockName} {
		if err := journal.CheckHolderVersion(filepath.Join(w.Dir, name)); err != nil {
			return err
		}
	}
	return nil
}

func (w *Workspace) TasksDir() string { return filepath.Join(w.Dir, "tasks") }

// TaskPath is the record file of id.
func (w *Workspace) TaskPath(id string) string {
	return w.Dir + string(filepath.Separator) + "tasks" + string(filepath.Separator) + id + ".json" // w.Dir is clean
}

// WorktreeDir is where task id's linked worktree lives.
func (w *Workspace) WorktreeDir(id string) string { return filepath.Join(w.Dir, "worktrees", id) }

// LogDir is where task id's command output is kept.
func (w *Workspace) LogDir(id string) string { return filepath.Join(w.Dir, "logs", id) }

// Lock takes the workspace lock that serializes mutating commands, then
// settles records left behind by dead processes (see Reconcile).
func (w *Workspace) Lock(ctx context.Context, what string) (*journal.Lock, error) {
	return w.LockWithin(ctx, what, LockTimeout)
}

// RecordWait is how long a command whose work is already done (a task's
// command has run and its outcome is to be recorded) waits for the
// workspace lock: longer than LockTimeout, because giving up there
// leaves the task interrupted and its result to capture by hand.
var RecordWait = 5 * time.Minute

// LockWithin is Lock waiting at most wait for each of the two locks.
func (w *Workspace) LockWithin(ctx context.Context, what string, wait time.Duration) (*journal.Lock, error) {
	l, err := journal.Acquire(ctx, filepath.Join(w.Dir, "lock"), wait, what)
	if err != nil {
		return nil, err
	}
	// Shared with git-autodev: see journal.WorkTreeLockName.
	if l, err = journal.AcquireWorkTree(ctx, l, w.Repo.GitDir, wait, what); err != nil {
		return nil, err
	}
	if err := w.Reconcile(); err != nil {
		l.Release()
		return nil, err
	}
	return l, nil
}

// UnknownTaskError is returned for an id with no record.
type UnknownTaskError struct{ ID string }

func (e *UnknownTaskError) Error() string {
	return fmt.Sprintf("unknown task %q: git nudge list shows this workspace's tasks", e.ID)
}

// Load reads task id's record.
func (w *Workspace) Load(id string) (*Task, error) {
	if !refs.Task.Valid(id) {
		return nil, &UnknownTaskError{ID: id}
	}
	var t Task
	if err := journal.Read(w.TaskPath(id), &t); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &UnknownTaskError{ID: id}
		}
		return nil, err
	}
	if t.ID != id {
		return nil, &journal.CorruptError{Path: w.TaskPath(id), Err: fmt.Errorf("record is for %q, not %q", t.ID, id)}
	}
	return &t, nil
}

// Save writes t's record atomically.
func (w *Workspace) Save(t *Task) error {
	if !refs.Task.Valid(t.ID) {
		return fmt.Errorf("refusing to write a record with a malformed id %q", t.ID)
	}
	t.Version = TaskSchema
	t.Updated = w.Now().UTC()
	if t.State == StatePreparing || t.State == StateRunning {
		t.GuardPending = true // see guardCheck
	}
	// The command's transaction (w.Repo.Tx) is told first.
	return journal.WriteIn(w.Repo.Tx, w.TaskPath(t.ID), t)
}

// List returns every task record, newest first. A corrupt record is an
// error naming it.
func (w *Workspace) List() ([]*Task, error) {
	ents, err := os.ReadDir(w.TasksDir())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var tasks []*Task
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !refs.Task.Valid(id) {
			continue
		}
		t, err := w.Load(id)
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, t)
	}
	newestFirst(tasks)
	return tasks, nil
}

// newestFirst sorts tasks by id number, highest first.
func newestFirst(tasks []*Task) {
	sort.Slice(tasks, func(i, j int) bool {
		a, _ := refs.Task.Number(tasks[i].ID)
		b, _ := refs.Task.Number(tasks[j].ID)
		return a > b
	})
}

// RunLockPath is held by the process that prepares or runs task id.
func (w *Workspace) RunLockPath(id string) string { return filepath.Join(w.TasksDir(), id+".lock") }

// HoldTask takes task id's own lock for as long as a process works on it
// outside the workspace lock (setup, run); Reconcile treats a preparing or
// running task whose lock is free as interrupted. The lock is inheritable:
// the setup commands and the task's command get it (descriptor 3), so the
// task stays busy while they, or anything they started, live on after
// the git-nudge process is gone.
func (w *Workspace) HoldTask(ctx context.Context, id string) (*journal.Lock, error) {
	if err := worktree.RealFile(w.Repo.WorkTree, StateDirName+"/tasks/"+id+".lock"); err != nil {
		return nil, err
	}
	return journal.AcquireInheritable(ctx, w.RunLockPath(id), time.Second, "git-nudge working on "+id)
}

// phaseOf names the phase of a task's life a state belongs to.
func phaseOf(state string) string {
	switch state {
	case StatePreparing:
		return "preparation (setup)"
	case StateRunning:
		return "execution (the command)"
	case StateValidating:
		return "validation"
	}
	return state
}

// Reconcile settles records left by processes that died, and must run with
// the workspace lock held: a task in applying or undoing becomes
// recovery_required (never retried); one in preparing or running whose
// process is gone becomes failed. Stage folders of dead processes are
// removed.
func (w *Workspace) Reconcile() error {
	w.cleanStages()
	// Every command runs this, so a record is only decoded when its bytes
	// hold the name of a state settled here, and only read when it is not
	// listed as quiet (quietRecords): the cost is a stat of each record,
	// not a read and a decoding of every task ever made. The same bytes
	// tell which tasks have a guard check pending.
	pending := []string{}
	var sus *suspectScan
	if w.wantSuspects {
		sus = &suspectScan{suspect: map[string]bool{}}
	}
	tasks, err := w.scanRecords(func(id string, data []byte) (bool, error) {
		if bytes.Contains(data, guardPendingTrue) {
			pending = append(pending, id)
		}
		if sus != nil {
			sus.note(w.TaskPath(id), id, data)
		}
		return mayBeUnsettled(data), nil
	}, func(id string) bool {
		if sus != nil {
			sus.ids = append(sus.ids, id) // a quiet record: no suspect, valid
		}
		return false
	})
	if err != nil {
		w.pendingAtLock, w.suspectsAtLock = nil, nil
		return err
	}
	w.pendingAtLock, w.suspectsAtLock = pending, sus
	for _, t := range tasks {
		switch t.State {
		case StateApplying, StateUndoing:
			msg := fmt.Sprintf("interrupted while %s: the work tree may hold a mix of the before and after versions; git nudge recover %s shows each file", t.State, t.ID)
			t.State = StateRecoveryRequired
			t.Error = &msg
		case StatePreparing, StateRunning, StateValidating:
			held, err := journal.Held(w.RunLockPath(t.ID))
			if err != nil || held {
				continue
			}
			msg := "interrupted during " + phaseOf(t.State) + ": the process working on this task is gone"
			if t.State == StateValidating && t.Validation != nil {
				t.Validation.State = ValidationFailed
				t.Validation.Reason = msg
			}
			t.State = StateFailed
			t.Error = &msg
			t.PID, t.CommandPID = nil, nil
		default:
			continue
		}
		if err := w.Save(t); err != nil {
			return err
		}
	}
	return nil
}

// Identity is the author and committer of every commit git-nudge writes
// for itself (snapshots, results): no user identity is needed.
var Identity = git.Identity{Name: "nudge", Email: "nudge@localhost"}

// HasWorktree reports whether t's worktree folder exists.
func (w *Workspace) HasWorktree(t *Task) bool {
	if t.Worktree == nil {
		return false
	}
	_, err := os.Stat(*t.Worktree)
	return err == nil
}

// SandboxObjects is the object directory a sandboxed command of task id
// writes its new objects into.
func (w *Workspace) SandboxObjects(id string) string {
	return filepath.Join(w.Dir, "sandbox", id, "objects")
}

// RunnerDir is the scratch folder of task id's runner: bundles in and
// out, the command file.
func (w *Workspace) RunnerDir(id string) string {
	return filepath.Join(w.Dir, "runners", id)
}
