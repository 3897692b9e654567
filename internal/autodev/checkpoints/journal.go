// Package checkpoints reads and writes git autodev's journal of
// checkpoints (checkpoints.json in the workspace's state folder): its
// entries, kept with the fields a newer version wrote; reading it whole,
// skimmed (ids and commits only) or from its summary and last kilobytes;
// appending in place or rewriting it atomically; and the decoded-journal
// cache of a long-lived reader. It knows nothing of the workflows that
// make the entries.
package checkpoints

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/txn"
)

// File is one worktree's checkpoints.json, as a workspace names it.
type File struct {
	Path    string // checkpoints.json
	Summary string // its summary (see LoadTail)
	// Tx is told of what an append in place changes (nil: none).
	Tx txn.Tx
	// Cache, when set, answers Load and LoadSkim (a workspace that only
	// reads; see Cache).
	Cache *Cache
	// Prepare, when set, runs before Save writes (makes the folder).
	Prepare func() error
	// Fault, when set, is called at each moment of an append in place,
	// named journal-append-<moment>, for crash tests.
	Fault func(point string)
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
	// raw, for a journal read skimmed (LoadSkim), is each entry's
	// bytes in file: Entries then hold only the ID and Commit of the
	// entries read (enough to number, find and append), and Find and
	// ByCommit decode the entry they return in full.
	raw [][]byte
	// partial, for a journal read from its summary (LoadTail):
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

// Load reads checkpoints.json. A missing file is an empty journal
// (Missing set); a file that does not parse is a *journal.CorruptError
// naming it, and is left as it is.
func (f *File) Load() (*Journal, error) {
	if f.Cache != nil {
		return f.Cache.load(f)
	}
	return f.load()
}

func (f *File) load() (*Journal, error) {
	path := f.Path
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

// LoadSkim reads checkpoints.json for a command that only appends
// to it (a checkpoint): the whole file is checked, as Load does,
// but of each entry only its id and commit are decoded. Anything unusual
// goes through Load, which names what is wrong.
func (f *File) LoadSkim() (*Journal, error) {
	if f.Cache != nil {
		return f.Cache.load(f)
	}
	data, err := journal.ReadAppendable(f.Path)
	if err != nil {
		return f.load()
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
		return f.load()
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

// Save writes checkpoints.json: entries appended to those read
// are written in place over the closing bracket (journal.AppendInPlace:
// a crash leaves the file as it was, or as the next command puts it back),
// anything else as a whole, atomic rewrite.
func (f *File) Save(j *Journal) error {
	if f.Prepare != nil {
		if err := f.Prepare(); err != nil {
			return err
		}
	}
	entries := j.Entries
	if entries == nil {
		entries = []Entry{}
	}
	path := f.Path
	if j.partial && !j.appendOnly() {
		return fmt.Errorf("writing %s: only entries can be added to a journal read from its summary", path)
	}
	data, err := f.tryAppend(j)
	if err != nil {
		return err
	}
	if data == nil && j.partial {
		// The file is not as its summary said: read it whole, and add
		// the new entries to it.
		full, err := f.LoadSkim()
		if err != nil {
			return err
		}
		full.Entries = append(full.Entries, j.Entries[len(j.read):]...)
		*j = *full
		entries = j.Entries
		if data, err = f.tryAppend(j); err != nil {
			return err
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
			f.dropSummary()
			return err
		}
		j.base, j.digest = 0, nil
	}
	f.writeSummary(j)
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

// tryAppend writes j's new entries in place when j only adds entries to
// what was read: the file's new bytes, or nil when nothing was written
// (j changed more than that, or the file is not as j read it).
func (f *File) tryAppend(j *Journal) ([]byte, error) {
	if !j.appendOnly() {
		return nil, nil
	}
	data, ok, err := f.appendInPlace(j)
	if err != nil {
		j.file, j.read = nil, nil
		return nil, fmt.Errorf("writing %s: %w", f.Path, err)
	}
	if !ok {
		return nil, nil
	}
	return data, nil
}

// appendInPlace writes j's new entries over the file's closing bracket;
// ok is false, with nothing written, when the file is not as j read it.
// j's digest is carried forward (j.file is set by the caller).
func (f *File) appendInPlace(j *Journal) (data []byte, ok bool, err error) {
	w := journal.Window{Base: j.base, Bytes: j.file, Digest: j.digest, DigestAt: j.digestAt}
	data, next, ok, err := journal.AppendInPlaceAt(f.Tx, f.Path, w, j.Entries[len(j.read):], f.appendHook())
	if ok {
		j.digest, j.digestAt = next.Digest, next.DigestAt
	}
	return data, ok, err
}

// appendHook lets crash tests stop an append in place at each of its
// moments (journal-append-marked, -torn, -written); nil otherwise.
func (f *File) appendHook() func(journal.AppendPoint) {
	if f.Fault == nil {
		return nil
	}
	return func(p journal.AppendPoint) { f.Fault("journal-append-" + string(p)) }
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

// NextNumber is one past the highest checkpoint number in the journal.
func (j *Journal) NextNumber() int {
	n := highest(j.Entries) + 1
	if j.partial {
		n = max(n, j.next)
	}
	return n
}

// Partial reports whether j was read from the summary (LoadTail): it
// holds only the newest entries, and only appending to it is possible.
func (j *Journal) Partial() bool { return j.partial }
