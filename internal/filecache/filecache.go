// Package filecache keeps what was read from files for as long as each
// file stays the version it was read from: the same key (journal.FileKey:
// device, inode, size, modification and change times), and a version not
// changed within journal.Racy before the read began, so that a later
// version written in the same timestamp tick cannot pass for it. Files
// written by rename get a new key with each version.
package filecache

import (
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// Cache holds a value per id, each read from one file. The zero value is
// empty and ready; a Cache is not safe for concurrent use.
type Cache[K comparable, V any] struct {
	m map[K]entry[V]
}

type entry[V any] struct {
	key journal.FileKey
	at  time.Time // when the read began
	v   V
}

// Get returns id's value when key, its file's key now, is the one it was
// read under, and that version was settled when read.
func (c *Cache[K, V]) Get(id K, key journal.FileKey) (V, bool) {
	e, ok := c.m[id]
	if !ok || e.key != key || !key.Settled(e.at) {
		var zero V
		return zero, false
	}
	return e.v, true
}

// Key is the file key id's value was stored under.
func (c *Cache[K, V]) Key(id K) (journal.FileKey, bool) {
	e, ok := c.m[id]
	return e.key, ok
}

// Put stores v as read from the version of id's file whose key is key, the
// read having begun at at. It reports whether id's key changed.
func (c *Cache[K, V]) Put(id K, key journal.FileKey, at time.Time, v V) bool {
	if c.m == nil {
		c.m = map[K]entry[V]{}
	}
	old, had := c.m[id]
	c.m[id] = entry[V]{key: key, at: at, v: v}
	return !had || old.key != key
}

// Delete forgets id; it reports whether anything was stored.
func (c *Cache[K, V]) Delete(id K) bool {
	_, ok := c.m[id]
	delete(c.m, id)
	return ok
}

// Keep forgets every id for which keep is false and returns how many.
func (c *Cache[K, V]) Keep(keep func(K) bool) int {
	n := 0
	for id := range c.m {
		if !keep(id) {
			delete(c.m, id)
			n++
		}
	}
	return n
}

// Len is the number of ids stored.
func (c *Cache[K, V]) Len() int { return len(c.m) }

// Load is id's value from the file at path: the stored one while the file
// is unchanged (Get), or else what read returns, stored when the file had
// the same key before and after read ran (a file replaced meanwhile is
// read again next time). An error from read forgets id. hit reports a
// stored answer.
func (c *Cache[K, V]) Load(id K, path string, read func() (V, error)) (v V, hit bool, err error) {
	before, ok := journal.StatKey(path)
	if ok {
		if v, hit := c.Get(id, before); hit {
			return v, true, nil
		}
	}
	at := time.Now()
	v, err = read()
	if err != nil {
		c.Delete(id)
		return v, false, err
	}
	if after, same := journal.StatKey(path); ok && same && after == before {
		c.Put(id, before, at, v)
	} else {
		c.Delete(id)
	}
	return v, false, nil
}
