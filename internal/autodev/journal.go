package autodev

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// Entry is one checkpoint in .autodev/checkpoints.json.
type Entry struct {
	ID     string  `json:"id"`
	Commit string  `json:"commit"`
	Label  string  `json:"label"`
	Type   string  `json:"type"`
	Time   string  `json:"time"` // RFC 3339
	Task   *string `json:"task"`
	Mode   *string `json:"mode"`
	// Worktree is the top level of the work tree the checkpoint was made
	// in, and Branch the branch it was made on ("HEAD" for a detached
	// HEAD). Both are "" in entries written before they were recorded.
	Worktree string `json:"worktree,omitempty"`
	Branch   string `json:"branch,omitempty"`
	// Extra keeps fields a newer version wrote, so a rewrite keeps them.
	Extra journal.Extra `json:"-"`
}

type entryFields Entry // without methods, for the known-field codec

// UnmarshalJSON decodes an entry and keeps the fields it does not know.
func (e *Entry) UnmarshalJSON(data []byte) error {
	var f entryFields
	extra, err := journal.UnmarshalKnown(data, &f)
	if err != nil {
		return err
	}
	*e = Entry(f)
	e.Extra = extra
	return nil
}

// MarshalJSON encodes an entry with the unknown fields it was read with.
func (e Entry) MarshalJSON() ([]byte, error) {
	f := entryFields(e)
	f.Extra = nil
	return journal.MarshalKnown(f, e.Extra)
}

// When parses the entry's time; ok is false when it cannot be read.
func (e Entry) When() (time.Time, bool) {
	t, err := time.Parse(time.RFC3339, e.Time)
	return t, err == nil
}

// Journal is the list of checkpoints, oldest first.
type Journal struct {
	Entries []Entry
	// Missing is true when checkpoints.json does not exist.
	Missing bool
}

// RebuildAdvice is what to do about a corrupt checkpoints.json: it is
// never overwritten, but history can rebuild it once it is out of the way.
const RebuildAdvice = "repair it, or move it aside (for example to checkpoints.json.bad) and run git autodev restore --rebuild to rebuild it from history"

// LoadJournal reads checkpoints.json. A missing file is an empty journal
// (Missing set); a file that does not parse is a *journal.CorruptError
// naming it, and is left as it is.
func (ws *Workspace) LoadJournal() (*Journal, error) {
	if ws.journalCache != nil {
		return ws.journalCache.load(ws)
	}
	return ws.loadJournal()
}

func (ws *Workspace) loadJournal() (*Journal, error) {
	path := ws.CheckpointsPath()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Journal{Missing: true}, nil
	}
	if err != nil {
		return nil, err
	}
	entries, err := decodeEntries(path, data)
	var ce *journal.CorruptError
	if errors.As(err, &ce) {
		ce.Next = RebuildAdvice
	}
	if err != nil {
		return nil, err
	}
	return &Journal{Entries: entries}, nil
}

// decodeEntries parses checkpoints.json with the journal codec, which keeps
// fields from a newer version and names a corrupt file.
func decodeEntries(path string, data []byte) ([]Entry, error) {
	// The usual file is checked once and its records decoded one by one;
	// anything odd goes through Decode, which says what is wrong.
	if json.Valid(data) {
		if elems, ok := journal.SplitArray(data); ok {
			entries := make([]Entry, len(elems))
			ok := true
			for i, raw := range elems {
				var f entryFields
				extra, err := journal.UnmarshalValidKnown(raw, &f)
				if err != nil {
					ok = false
					break
				}
				entries[i] = Entry(f)
				entries[i].Extra = extra
			}
			if ok {
				return entries, nil
			}
		}
	}
	var entries []Entry
	if err := journal.Decode(path, data, &entries); err != nil {
		return nil, err
	}
	if entries == nil {
		// "null" is not a journal.
		return nil, &journal.CorruptError{Path: path, Err: errors.New("not a JSON array")}
	}
	return entries, nil
}

// save writes checkpoints.json atomically.
func (ws *Workspace) saveJournal(j *Journal) error {
	if err := ws.ensureDir(); err != nil {
		return err
	}
	entries := j.Entries
	if entries == nil {
		entries = []Entry{}
	}
	if err := journal.Write(ws.CheckpointsPath(), entries); err != nil {
		return err
	}
	j.Missing = false
	return nil
}

// Find returns the newest entry with id.
func (j *Journal) Find(id string) (Entry, bool) {
	for i := len(j.Entries) - 1; i >= 0; i-- {
		if j.Entries[i].ID == id {
			return j.Entries[i], true
		}
	}
	return Entry{}, false
}

// ByCommit returns the oldest entry recording commit: the checkpoint that
// first recorded it (later pre-restore entries may record it again).
func (j *Journal) ByCommit(commit string) (Entry, bool) {
	if commit == "" {
		return Entry{}, false
	}
	for _, e := range j.Entries {
		if e.Commit == commit {
			return e, true
		}
	}
	return Entry{}, false
}

// nextNumber is one past the highest checkpoint number in the journal.
func (j *Journal) nextNumber() int {
	max := 0
	for _, e := range j.Entries {
		if n, ok := refs.Checkpoint.Number(e.ID); ok && n > max {
			max = n
		}
	}
	return max + 1
}
