package autodev

import (
	"slices"
	"sync"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// JournalCache keeps the last checkpoints.json decoded, for a long-lived
// reader (the dashboard) that lists ten thousand checkpoints on every
// change: while the file's key (journal.FileKey) is the same, and the file
// was not changed just before it was read (journal.Racy), LoadJournal
// answers from it. Use it only on workspaces that read: a workflow that
// writes the journal reads it under its lock, without a cache.
type JournalCache struct {
	mu  sync.Mutex
	key journal.FileKey
	at  time.Time // when it was read
	j   *Journal
	gen uint64
}

// UseJournalCache makes ws's LoadJournal use c.
func (ws *Workspace) UseJournalCache(c *JournalCache) { ws.journalCache = c }

// Generation counts the times c has read the file afresh: the same
// generation is the same journal.
func (c *JournalCache) Generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

func (c *JournalCache) load(ws *Workspace) (*Journal, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	path := ws.CheckpointsPath()
	before, ok := journal.StatKey(path)
	if ok && c.j != nil && before == c.key && before.Settled(c.at) {
		return c.copyOf(), nil
	}
	at := time.Now()
	j, err := ws.loadJournal()
	if err != nil {
		c.j = nil
		return nil, err
	}
	c.gen++
	c.j = nil
	if after, same := journal.StatKey(path); ok && same && after == before {
		c.key, c.at, c.j = before, at, j
		return c.copyOf(), nil
	}
	return j, nil
}

// copyOf is the cached journal with its own entry slice, so a caller
// that reorders or appends leaves the cache alone.
func (c *JournalCache) copyOf() *Journal {
	return &Journal{Entries: slices.Clone(c.j.Entries), Missing: c.j.Missing}
}
