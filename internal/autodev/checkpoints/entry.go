package checkpoints

import (
	"bytes"
	"encoding/json"
	"errors"
	"time"

	"github.com/nudgethis/git-nudge/internal/agenthooks"
	"github.com/nudgethis/git-nudge/internal/journal"
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
	// Session is the agent conversation an agent's hook made the
	// checkpoint in, nil otherwise.
	Session *agenthooks.Session `json:"agent_session,omitempty"`
	// Squashed is the commit git autodev squash folded this checkpoint
	// into ("" when it was not squashed); the checkpoint's own commit
	// stays pinned and restorable.
	Squashed string `json:"squashed,omitempty"`
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

// sameEntry reports whether a and b encode the same.
func sameEntry(a, b *Entry) bool {
	if a.ID != b.ID || a.Commit != b.Commit || a.Label != b.Label || a.Type != b.Type || a.Time != b.Time ||
		a.Worktree != b.Worktree || a.Branch != b.Branch || a.Squashed != b.Squashed || !sameSession(a.Session, b.Session) || !samePtr(a.Task, b.Task) || !samePtr(a.Mode, b.Mode) ||
		len(a.Extra) != len(b.Extra) {
		return false
	}
	for k, v := range a.Extra {
		if w, ok := b.Extra[k]; !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

func sameSession(a, b *agenthooks.Session) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func samePtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
