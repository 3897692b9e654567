package nudge

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/proc"
)

// SettleWait is how long a read-only command waits for the workspace lock
// before reading records without settling them.
var SettleWait = 2 * time.Second

// Settle runs Reconcile for commands that only read (list, show, diff), so
// that they too report interrupted tasks as such. When another command
// holds the lock for long, it reads without settling rather than fail.
func (w *Workspace) Settle(ctx context.Context) error {
	lock := filepath.Join(w.Dir, "lock")
	if _, err := os.Lstat(lock); errors.Is(err, fs.ErrNotExist) {
		// No command ever took the lock here, so none was interrupted
		// holding it; and a read-only command creates nothing.
		return nil
	}
	if err := w.checkVersions(false); err != nil {
		// Another version's state is read as it is, never settled here.
		return nil
	}
	l, err := journal.Acquire(ctx, lock, SettleWait, "git-nudge (reading tasks)")
	if err != nil {
		var le *journal.LockedError
		if errors.As(err, &le) {
			return nil
		}
		return err
	}
	defer l.Release()
	return w.Reconcile()
}

// Busy reports whether a live process is preparing or running task id.
func (w *Workspace) Busy(id string) bool {
	held, err := journal.Held(w.RunLockPath(id))
	return err == nil && held
}

// Orphaned reports, for a task a live process holds (busy), whether the
// git-nudge process that prepared or ran it has ended while what it
// started still runs and keeps the task's lock: then it returns that
// git-nudge pid and the command's pid (0 when unknown).
func (w *Workspace) Orphaned(t *Task) (nudgePID, commandPID int, ok bool) {
	return w.orphaned(t.ID, t.PID, t.CommandPID)
}

// OrphanedSummary is Orphaned for a task read as a summary.
func (w *Workspace) OrphanedSummary(s *TaskSummary) (nudgePID, commandPID int, ok bool) {
	return w.orphaned(s.ID, s.PID, s.CommandPID)
}

func (w *Workspace) orphaned(id string, pid, cmdPID *int) (nudgePID, commandPID int, ok bool) {
	if pid == nil || !proc.Gone(*pid) || !w.Busy(id) {
		return 0, 0, false
	}
	if cmdPID != nil {
		commandPID = *cmdPID
	}
	return *pid, commandPID, true
}

// BusyReason is the refusal reason for a task a live process is
// preparing or running (busy is true).
func (w *Workspace) BusyReason(t *Task) string {
	const reason = "another git-nudge process is preparing or running it"
	nudgePID, cmdPID, ok := w.Orphaned(t)
	if !ok {
		return reason
	}
	who := "a command it started"
	if cmdPID > 0 {
		who = fmt.Sprintf("its command (pid %d), or something that command started,", cmdPID)
	}
	return fmt.Sprintf("%s: git-nudge (pid %d) has ended, but %s still runs in its worktree", reason, nudgePID, who)
}
