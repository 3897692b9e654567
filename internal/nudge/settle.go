package nudge

import (
	"context"
	"errors"
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
	l, err := journal.Acquire(ctx, filepath.Join(w.Dir, "lock"), SettleWait, "git-nudge (reading tasks)")
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
