package git

// This file holds telling watchers, in this process, which refs are about
// to change.

import "github.com/nudgethis/git-nudge/internal/watch"

// A ref watcher is told, in this process, the names of the refs a Repo is
// about to change (SetRef, DeleteRef, UpdateRefs, SetRefFast; "HEAD" for
// SetHeadTarget and ResetHard, which move HEAD or the branch it names),
// before they change, with the repository's git folders: the operation log
// reads what such a ref held then, instead of reading every ref in case
// the command changes one (a cost that grew with the number of tasks).
var refWatchers watch.List[func(gitDir, commonDir string, names []string)]

// WatchRefs calls fn with the refs this process is about to change, until
// stop is called. fn runs in the goroutine changing them and must not
// change refs itself.
func WatchRefs(fn func(gitDir, commonDir string, names []string)) (stop func()) {
	return refWatchers.Add(fn)
}

// refsAboutToChange tells every watcher that r is about to change names.
func (r *Repo) refsAboutToChange(names ...string) {
	if r.Unwatched {
		return
	}
	for _, fn := range refWatchers.All() {
		fn(r.GitDir, r.CommonDir, names)
	}
}
