package nudge

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
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

// busy reports whether a live process is preparing or running task id.
func (w *Workspace) busy(id string) bool {
	held, err := journal.Held(w.runLockPath(id))
	return err == nil && held
}
