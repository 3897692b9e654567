// Package watch keeps the watchers a layer tells, in this process, about a
// change it is about to make (journal.Watch, git.WatchRefs): the operation
// log reads what a journal or a ref held right before this process
// changes it.
package watch

import "sync"

// List is a set of watchers of type F, safe for concurrent use.
type List[F any] struct {
	mu   sync.Mutex
	next int
	fns  map[int]F
}

// Add adds fn until stop is called.
func (l *List[F]) Add(fn F) (stop func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fns == nil {
		l.fns = map[int]F{}
	}
	k := l.next
	l.next++
	l.fns[k] = fn
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.fns, k)
	}
}

// All returns the watchers now (called without the list's lock held, so
// that a watcher may take its own).
func (l *List[F]) All() []F {
	l.mu.Lock()
	defer l.mu.Unlock()
	fns := make([]F, 0, len(l.fns))
	for _, fn := range l.fns {
		fns = append(fns, fn)
	}
	return fns
}
