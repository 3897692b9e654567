package checkpoints

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"

	"github.com/nudgethis/git-nudge/internal/filecache"
	"github.com/nudgethis/git-nudge/internal/journal"
)

// Cache keeps the last checkpoints.json decoded, for a long-lived
// reader (the dashboard) that lists ten thousand checkpoints on every
// change: while the file's key (journal.FileKey) is the same, and the file
// was not changed just before it was read (journal.Racy), File.Load
// answers from it. Use it only on workspaces that read: a workflow that
// writes the journal reads it under its lock, without a cache.
type Cache struct {
	mu   sync.Mutex
	file filecache.Cache[struct{}, *Journal]
	gen  uint64
	// byRaw is every entry of the last version read, by its bytes in the
	// file: a new version (a checkpoint appended) decodes only its new
	// entries.
	byRaw map[string]Entry
	data  []byte  // the file as last read
	last  []Entry // its entries (when data is set)
}

// Generation counts the times c has read the file afresh: the same
// generation is the same journal.
func (c *Cache) Generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

func (c *Cache) load(f *File) (*Journal, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	j, _, err := c.file.Load(struct{}{}, f.Path, func() (*Journal, error) {
		_, had := c.file.Key(struct{}{})
		j, data, err := c.read(f)
		if err != nil {
			c.data = nil
			return nil, err
		}
		if data == nil || !had || !slices.Equal(data, c.data) {
			c.gen++ // the same bytes read again are the same generation
		}
		c.data = data
		return j, nil
	})
	if err != nil {
		return nil, err
	}
	return copyOf(j), nil
}

// copyOf is j with its own entry slice, so a caller that reorders or
// appends leaves the cached one alone.
func copyOf(j *Journal) *Journal {
	return &Journal{Entries: slices.Clone(j.Entries), Missing: j.Missing}
}

// read is File.load, decoding only the entries the last version read
// did not have. Anything unusual goes through File.load, which names
// what is wrong.
func (c *Cache) read(f *File) (*Journal, []byte, error) {
	data, err := journal.ReadAppendable(f.Path)
	if err == nil {
		if entries, ok := c.appended(data); ok {
			c.last = entries
			return &Journal{Entries: entries}, data, nil
		}
	}
	if err != nil || !json.Valid(data) {
		j, err := f.load()
		return j, nil, err
	}
	elems, ok := journal.SplitArray(data)
	if !ok {
		j, err := f.load()
		return j, nil, err
	}
	next := make(map[string]Entry, len(elems))
	entries := make([]Entry, len(elems))
	for i, raw := range elems {
		if e, ok := c.byRaw[string(raw)]; ok {
			entries[i] = e
			next[string(raw)] = e
			continue
		}
		var fields entryFields
		extra, err := journal.UnmarshalValidKnown(raw, &fields)
		if err != nil {
			j, err := f.load()
			return j, nil, err
		}
		entries[i] = Entry(fields)
		entries[i].Extra = extra
		next[string(raw)] = entries[i]
	}
	c.byRaw, c.last = next, entries
	return &Journal{Entries: entries}, data, nil
}

// appended decodes data when it is the last version read, or that with entries
// appended (what a checkpoint or a restore does): the old bytes up to the
// last entry's closing brace, then "," and more entries. Only the new
// part is checked and decoded.
func (c *Cache) appended(data []byte) ([]Entry, bool) {
	if c.data == nil || len(c.last) == 0 {
		return nil, false
	}
	if bytes.Equal(data, c.data) { // read again within journal.Racy
		return slices.Clone(c.last), true
	}
	end := bytes.LastIndexByte(c.data, '}') + 1
	if end <= 0 || len(data) <= end || !bytes.Equal(data[:end], c.data[:end]) {
		return nil, false
	}
	rest := bytes.TrimLeft(data[end:], " \t\r\n")
	if len(rest) == 0 || rest[0] != ',' {
		return nil, false
	}
	tail := append([]byte{'['}, rest[1:]...)
	if !json.Valid(tail) {
		return nil, false
	}
	elems, ok := journal.SplitArray(tail)
	if !ok || len(elems) == 0 {
		return nil, false
	}
	entries := slices.Grow(slices.Clone(c.last), len(elems))
	for _, raw := range elems {
		var f entryFields
		extra, err := journal.UnmarshalValidKnown(raw, &f)
		if err != nil {
			return nil, false
		}
		e := Entry(f)
		e.Extra = extra
		entries = append(entries, e)
		c.byRaw[string(raw)] = e
	}
	return entries, true
}
