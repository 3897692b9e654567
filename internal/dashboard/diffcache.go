package dashboard

import "sync"

// diffCache keeps the last few answers of GET .../diff, encoded. A task's
// diff is a function of its base commit and its result commit (both
// immutable) and of the byte limit, which together are the key: a task
// run again, or a result replaced, has another key, so a stale answer is
// never served. Opening a large task a second time then costs no git
// process and no encoding.
type diffCache struct {
	mu      sync.Mutex
	entries []diffEntry // oldest first
	size    int
}

type diffEntry struct {
	key  string
	body []byte
}

// Bounds: a handful of tasks' diffs, at most a few times the 1 MiB the
// API sends for one.
const diffCacheEntries, diffCacheBytes = 8, 16 << 20

func (c *diffCache) get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.entries {
		if e.key == key {
			return e.body, true
		}
	}
	return nil, false
}

func (c *diffCache) put(key string, body []byte) {
	if len(body) > diffCacheBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.key == key {
			c.size -= len(e.body)
			c.entries = append(c.entries[:i], c.entries[i+1:]...)
			break
		}
	}
	for len(c.entries) > 0 && (len(c.entries) >= diffCacheEntries || c.size+len(body) > diffCacheBytes) {
		c.size -= len(c.entries[0].body)
		c.entries = c.entries[1:]
	}
	c.entries = append(c.entries, diffEntry{key: key, body: body})
	c.size += len(body)
}
