package journal

import (
	"os"

	"github.com/nudgethis/git-nudge/internal/watch"
)

// A watcher is told, in this process, the path of every journal file about
// to be replaced (Write, WriteBytes) or removed (Remove), before the file
// changes: the operation log reads what such a file held then, instead of
// reading every task record before each command in case the command
// changes one (a cost that grew with the number of tasks).
var watchers watch.List[func(path string)]

// Watch calls fn with the path of each journal this process is about to
// change, until stop is called. fn runs in the goroutine changing the file
// (several at once, possibly) and must not change journals itself.
func Watch(fn func(path string)) (stop func()) { return watchers.Add(fn) }

// aboutToChange tells every watcher that path is about to change.
func aboutToChange(path string) {
	for _, fn := range watchers.All() {
		fn(path)
	}
}

// Remove removes the journal file at path (watchers told first); a file
// already gone is not an error.
func Remove(path string) error {
	aboutToChange(path)
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}
