package journal

import (
	"os"

	"github.com/nudgethis/git-nudge/internal/txn"
)

// Remove removes the journal file at path; a file already gone is not an
// error.
func Remove(path string) error { return RemoveIn(nil, path) }

// RemoveIn is Remove for the command whose transaction is tx: tx (when
// not nil) is told first that path is about to change.
func RemoveIn(tx txn.Tx, path string) error {
	txn.JournalChanging(tx, path)
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}
