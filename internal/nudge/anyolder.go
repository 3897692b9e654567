package nudge

import (
	"bytes"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// updatedKey starts a record's "updated" field as records are written.
var updatedKey = []byte(`"updated": "`)

// AnyOlder reports whether some task record has not changed for age,
// from each record's "updated" field alone, without the lock: what
// automatic pruning looks at first, so that the usual day, with nothing
// old, costs no lock and no decoding. A record the quiet-records cache
// lists, with its file unchanged, is not read: the cache keeps the field
// as it was read from that file. A record it cannot read counts as old
// (Prune then looks at it properly).
func (w *Workspace) AnyOlder(age time.Duration) bool {
	q := w.quietRecordsOf()
	defer q.close()
	dir := q.tasks // records are listed, stat'ed and read relative to it
	if dir == nil {
		return true
	}
	ids, err := taskIDsIn(dir)
	if err != nil {
		return true
	}
	now := w.Now()
	var data []byte
	for _, id := range ids {
		if _, _, isQuiet := q.known(w, id); isQuiet {
			if u := q.updated[id]; u != 0 {
				if now.Sub(time.Unix(0, u)) >= age {
					return true
				}
				continue
			}
		}
		data, err = journal.ReadFileAt(dir, id+".json", data)
		if err != nil {
			continue // removed meanwhile
		}
		t, ok := recordUpdated(data)
		if !ok || now.Sub(t) >= age {
			return true
		}
	}
	return false
}

// recordUpdated reads a record's "updated" field from its bytes, without
// decoding the record (ok false when it is not there as records are
// written).
func recordUpdated(data []byte) (time.Time, bool) {
	i := bytes.LastIndex(data, updatedKey)
	if i < 0 {
		return time.Time{}, false
	}
	rest := data[i+len(updatedKey):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, string(rest[:end]))
	return t, err == nil
}
