package checkpoints

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/json"
	"os"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// A checkpoint appends one entry to checkpoints.json and needs to know
// little of the rest: the next checkpoint number, and whether HEAD's
// commit is already recorded (it is, in the usual case, by the newest
// entry). The journal's summary (".checkpoints.json.summary", written
// by whoever last wrote the journal under the lock) holds that, for the
// version of the file it names by its key (journal.FileKey: device,
// inode, size, modification and change time). While the file still has
// that key, a checkpoint reads only the summary and the file's last few
// kilobytes, whatever the number of checkpoints; any other writer (op
// undo, an editor, a crash repair) changes the key, and the next
// checkpoint reads the whole file, checks it and writes the summary
// again.

// journalSummary is what the summary file holds.
type journalSummary struct {
	Key journal.FileKey `json:"key"`
	// Next is one past the highest checkpoint number of the file.
	Next int `json:"next"`
	// Last are the newest entries' ids and commits, oldest first.
	Last []summaryEntry `json:"last"`
	// Digest is the SHA-256 state of the file's bytes before DigestAt,
	// where the next append's change starts (journal.Window): the
	// change's record names the bytes it does not hold by that digest.
	Digest   []byte `json:"digest"`
	DigestAt int64  `json:"digest_at"`
}

type summaryEntry struct {
	ID     string `json:"id"`
	Commit string `json:"commit"`
}

// summaryEntries is how many of the newest entries the summary names.
const summaryEntries = 8

// tailWindow is how much of the file's end a checkpoint reads to append
// to it: more than an entry, so that the append checks a whole one.
const tailWindow = 4096

// LoadTail is LoadSkim for a checkpoint: when the summary
// is that of the file as it is, the journal holds only the newest entries
// (partial) and the file's last bytes, else it is LoadSkim's.
func (f *File) LoadTail() (*Journal, error) {
	if j := f.fromSummary(); j != nil {
		return j, nil
	}
	return f.LoadSkim()
}

// fromSummary is the partial journal the summary describes, nil when
// the summary is not that of the file as it is.
func (f *File) fromSummary() *Journal {
	if f.Cache != nil {
		return nil
	}
	b, err := journal.ReadRegular(f.Summary)
	if err != nil {
		return nil
	}
	var sum journalSummary
	if json.Unmarshal(b, &sum) != nil || len(sum.Last) == 0 || sum.Next < 1 || len(sum.Digest) == 0 {
		return nil
	}
	path := f.Path
	file, err := journal.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return nil
	}
	key, ok := journal.KeyOf(fi)
	if !ok || key != sum.Key || journal.AppendPending(path) {
		// Changed since, or an append in place was interrupted.
		return nil
	}
	base := max(0, fi.Size()-tailWindow)
	window := make([]byte, fi.Size()-base, fi.Size()-base+1024)
	if n, err := file.ReadAt(window, base); err != nil || int64(n) != int64(len(window)) {
		return nil
	}
	if !bytes.HasSuffix(bytes.TrimRight(window, " \t\r\n"), []byte("]")) {
		return nil
	}
	if sum.DigestAt < base {
		return nil
	}
	j := &Journal{partial: true, next: sum.Next, base: base, file: window, digest: sum.Digest, digestAt: sum.DigestAt}
	for _, e := range sum.Last {
		j.Entries = append(j.Entries, Entry{ID: e.ID, Commit: e.Commit})
	}
	j.read = append([]Entry(nil), j.Entries...)
	return j
}

// writeSummary records, for the file as j was just written, the summary
// a later checkpoint reads instead of the file. Any failure only leaves
// the next checkpoint to read the whole file.
func (f *File) writeSummary(j *Journal) {
	path := f.Summary
	key, ok := journal.StatKey(f.Path)
	if !ok || len(j.Entries) == 0 {
		_ = os.Remove(path)
		return
	}
	sum := journalSummary{Key: key, Next: j.NextNumber(), Digest: j.digest, DigestAt: j.digestAt}
	if sum.Digest == nil && j.base == 0 && int64(len(j.file)) == key.Size {
		// The whole file is at hand (a whole rewrite, or a first
		// append): its digest is taken once here.
		at := lastEnd(j.file)
		h := sha256.New()
		h.Write(j.file[:at])
		if st, err := h.(encoding.BinaryMarshaler).MarshalBinary(); err == nil {
			sum.Digest, sum.DigestAt = st, at
		}
	}
	if sum.Digest == nil {
		_ = os.Remove(path)
		return
	}
	for _, e := range j.Entries[max(0, len(j.Entries)-summaryEntries):] {
		sum.Last = append(sum.Last, summaryEntry{ID: e.ID, Commit: e.Commit})
	}
	b, err := json.Marshal(sum)
	if err != nil {
		_ = os.Remove(path)
		return
	}
	if journal.WriteRegular(path, b, 0o644) != nil {
		_ = os.Remove(path)
	}
}

// dropSummary forgets the summary (a whole rewrite of the journal by a
// command that will not write a new one).
func (f *File) dropSummary() { _ = os.Remove(f.Summary) }

// HasRecent reports whether one of the newest entries j holds records
// commit.
func (j *Journal) HasRecent(commit string) bool {
	for i := len(j.Entries) - 1; i >= 0; i-- {
		if j.Entries[i].Commit == commit {
			return true
		}
	}
	return false
}

// highest is the highest checkpoint number among entries.
func highest(entries []Entry) int {
	max := 0
	for _, e := range entries {
		if n, ok := refs.Checkpoint.Number(e.ID); ok && n > max {
			max = n
		}
	}
	return max
}

// lastEnd is the offset just past data's last element (see
// journal.AppendInPlaceAt), 0 when data does not end like an array.
func lastEnd(data []byte) int64 {
	head := bytes.TrimRight(data, " \t\r\n")
	if !bytes.HasSuffix(head, []byte("]")) {
		return 0
	}
	return int64(len(bytes.TrimRight(head[:len(head)-1], " \t\r\n")))
}
