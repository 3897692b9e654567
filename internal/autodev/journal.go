package autodev

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
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

// Journal is the list of checkpoints, oldest first.
type Journal struct {
	Entries []Entry
	// Missing is true when checkpoints.json does not exist.
	Missing bool
	// file is checkpoints.json as read or last written, and read the
	// entries it holds (a copy): a save that only appends to them adds
	// the new entries' text to file instead of encoding every entry
	// again (nil: encode them all).
	file []byte
	read []Entry
	// raw, for a journal read skimmed (loadJournalSkim), is each entry's
	// bytes in file: Entries then hold only the ID and Commit of the
	// entries read (enough to number, find and append), and Find and
	// ByCommit decode the entry they return in full.
	raw [][]byte
	// partial, for a journal read from its summary (loadJournalTail):
	// Entries hold only the newest entries' ids and commits, next is one
	// past the highest number of the whole file, and file is the file's
	// bytes from offset base to its end. Only appending is possible.
	partial bool
	next    int
	base    int64
	// digest is the SHA-256 state of the file's bytes before digestAt
	// (journal.Window), when known.
	digest   []byte
	digestAt int64
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
	// A fifo is an error, not a wait; an append in place under way (or
	// interrupted) reads as the version before it.
	data, err := journal.ReadAppendable(path)
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
	return &Journal{Entries: entries, file: data, read: slices.Clone(entries)}, nil
}

// loadJournalSkim reads checkpoints.json for a command that only appends
// to it (a checkpoint): the whole file is checked, as loadJournal does,
// but of each entry only its id and commit are decoded. Anything unusual
// goes through loadJournal, which names what is wrong.
func (ws *Workspace) loadJournalSkim() (*Journal, error) {
	if ws.journalCache != nil {
		return ws.journalCache.load(ws)
	}
	data, err := journal.ReadAppendable(ws.CheckpointsPath())
	if err != nil {
		return ws.loadJournal()
	}
	hint := bytes.Count(data, []byte(`"commit"`))
	entries := make([]Entry, 0, hint+1)
	raw := make([][]byte, 0, hint+1)
	bad := errors.New("not a plain entry")
	names := []string{"id", "commit"}
	err = journal.ScanArray(data, func(elem []byte) error {
		var e Entry
		if n, ok := journal.MemberStrings(elem, names, []*string{&e.ID, &e.Commit}); !ok || n != 2 {
			return bad
		}
		entries = append(entries, e)
		raw = append(raw, elem)
		return nil
	})
	if err != nil || len(entries) == 0 {
		return ws.loadJournal()
	}
	return &Journal{Entries: entries, file: data, read: slices.Clone(entries), raw: raw}, nil
}

// full is entry i as the file holds it, decoded in full (a skimmed
// journal's entries hold only their id and commit).
func (j *Journal) full(i int) Entry {
	if j.raw == nil || i >= len(j.raw) || !sameEntry(&j.Entries[i], &j.read[i]) {
		return j.Entries[i]
	}
	var f entryFields
	extra, err := journal.UnmarshalValidKnown(j.raw[i], &f)
	if err != nil {
		return j.Entries[i]
	}
	e := Entry(f)
	e.Extra = extra
	return e
}

// unskim decodes every entry of a skimmed journal in full, keeping the
// changes made to them since.
func (j *Journal) unskim() {
	if j.raw == nil {
		return
	}
	for i := range j.raw {
		if i < len(j.Entries) {
			j.Entries[i] = j.full(i)
		}
	}
	j.raw = nil
	j.read = nil
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

// saveJournal writes checkpoints.json: entries appended to those read
// are written in place over the closing bracket (journal.AppendInPlace:
// a crash leaves the file as it was, or as the next command puts it back),
// anything else as a whole, atomic rewrite.
func (ws *Workspace) saveJournal(j *Journal) error {
	if err := ws.ensureDir(); err != nil {
		return err
	}
	entries := j.Entries
	if entries == nil {
		entries = []Entry{}
	}
	path := ws.CheckpointsPath()
	var data []byte
	var err error
	if j.partial && !j.appendOnly() {
		return fmt.Errorf("writing %s: only entries can be added to a journal read from its summary", path)
	}
	if j.appendOnly() {
		var ok bool
		data, ok, err = ws.appendInPlace(j)
		if err != nil {
			j.file, j.read = nil, nil
			return fmt.Errorf("writing %s: %w", path, err)
		}
		if !ok {
			data = nil
		}
	}
	if data == nil && j.partial {
		// The file is not as its summary said: read it whole, and add
		// the new entries to it.
		full, err := ws.loadJournalSkim()
		if err != nil {
			return err
		}
		full.Entries = append(full.Entries, j.Entries[len(j.read):]...)
		*j = *full
		entries = j.Entries
		if j.appendOnly() {
			var ok bool
			data, ok, err = ws.appendInPlace(j)
			if err != nil {
				j.file, j.read = nil, nil
				return fmt.Errorf("writing %s: %w", path, err)
			}
			if !ok {
				data = nil
			}
		}
	}
	if data == nil {
		if data, err = j.appended(); err == nil && data == nil {
			j.unskim()
			entries = j.Entries
			if entries == nil {
				entries = []Entry{}
			}
			data, err = journal.Encode(entries)
		}
		if err != nil {
			return fmt.Errorf("encoding %s: %w", path, err)
		}
		if err := journal.WriteBytes(path, data); err != nil {
			j.file, j.read = nil, nil
			ws.dropSummary()
			return err
		}
		j.base, j.digest = 0, nil
	}
	ws.writeSummary(j)
	j.Missing = false
	if j.raw != nil {
		// Still skimmed: the entries appended are known in full.
		for _, e := range entries[len(j.raw):] {
			b, err := journal.Marshal(e)
			if err != nil {
				j.unskim()
				break
			}
			j.raw = append(j.raw, b)
		}
	}
	j.file, j.read = data, slices.Clone(entries)
	return nil
}

// appendInPlace writes j's new entries over the file's closing bracket;
// ok is false, with nothing written, when the file is not as j read it.
// j's digest is carried forward (j.file is set by the caller).
func (ws *Workspace) appendInPlace(j *Journal) (data []byte, ok bool, err error) {
	w := journal.Window{Base: j.base, Bytes: j.file, Digest: j.digest, DigestAt: j.digestAt}
	data, next, ok, err := journal.AppendInPlaceAt(ws.Repo.Tx, ws.CheckpointsPath(), w, j.Entries[len(j.read):], appendHook())
	if ok {
		j.digest, j.digestAt = next.Digest, next.DigestAt
	}
	return data, ok, err
}

// appendHook lets crash tests stop an append in place at each of its
// moments (journal-append-marked, -torn, -written); nil otherwise.
func appendHook() func(journal.AppendPoint) {
	if !faults.Set() {
		return nil
	}
	return func(p journal.AppendPoint) { faultPoint("journal-append-" + string(p)) }
}

// appendOnly reports whether the entries differ from those read or last
// written only by entries added after them.
func (j *Journal) appendOnly() bool {
	if j.file == nil || len(j.Entries) <= len(j.read) {
		return false
	}
	for i := range j.read {
		if !sameEntry(&j.Entries[i], &j.read[i]) {
			return false
		}
	}
	return true
}

// appended is checkpoints.json with the entries added since it was read
// or written (the usual change: a checkpoint appended), or nil when the
// entries it held changed or it is not known; the whole list is encoded
// then.
func (j *Journal) appended() ([]byte, error) {
	if !j.appendOnly() {
		return nil, nil
	}
	data, ok, err := journal.AppendArray(j.file, j.Entries[len(j.read):])
	if !ok {
		return nil, err
	}
	return data, err
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

// Find returns the newest entry with id.
func (j *Journal) Find(id string) (Entry, bool) {
	for i := len(j.Entries) - 1; i >= 0; i-- {
		if j.Entries[i].ID == id {
			return j.full(i), true
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
	for i, e := range j.Entries {
		if e.Commit == commit {
			return j.full(i), true
		}
	}
	return Entry{}, false
}

// nextNumber is one past the highest checkpoint number in the journal.
func (j *Journal) nextNumber() int {
	n := highest(j.Entries) + 1
	if j.partial {
		n = max(n, j.next)
	}
	return n
}
