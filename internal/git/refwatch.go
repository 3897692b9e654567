package git

// This file holds telling watchers, in this process, which refs are about
// to change.

import "sync"

// A ref watcher is told, in this process, the names of the refs a Repo is
// about to change (SetRef, DeleteRef, UpdateRefs, SetRefFast; "HEAD" for
// SetHeadTarget and ResetHard, which move HEAD or the branch it names),
// before they change, with the repository's git folders: the operation log
// reads what such a ref held then, instead of reading every ref in case
// the command changes one (a cost that grew with the number of tasks).
var refWatchers struct {
	sync.Mutex
	next int
	fns  map[int]func(gitDir, commonDir string, names []string)
}

// WatchRefs calls fn with the refs this process is about to change, until
// stop is called. fn runs in the goroutine changing them and must not
// change refs itself.
func WatchRefs(fn func(gitDir, commonDir string, names []string)) (stop func()) {
	refWatchers.Lock()
	defer refWatchers.Unlock()
	if refWatchers.fns == nil {
		refWatchers.fns = map[int]func(string, string, []string){}
	}
	k := refWatchers.next
	refWatchers.next++
	refWatchers.fns[k] = fn
	return func() {
		refWatchers.Lock()
		defer refWatchers.Unlock()
		delete(refWatchers.fns, k)
	}
}

// refsAboutToChange tells every watcher that r is about to change names.
func (r *Repo) refsAboutToChange(names ...string) {
	refWatchers.Lock()
	fns := make([]func(string, string, []string), 0, len(refWatchers.fns))
	for _, fn := range refWatchers.fns {
		fns = append(fns, fn)
	}
	refWatchers.Unlock()
	for _, fn := range fns {
		fn(r.GitDir, r.CommonDir, names)
	}
}
