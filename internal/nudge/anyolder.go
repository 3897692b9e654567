package nudge

import (
	"bytes"
	"os"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// updatedKey starts a record's "updated" field as records are written.
var updatedKey = []byte(`"updated": "`)

// AnyOlder reports whether some task record has not changed for age,
// from each record's "updated" field alone, without the lock: what
// automatic pruning looks at first, so that the usual day, with nothing
// old, costs no lock and no decoding. A record it cannot read counts as
// old (Prune then looks at it properly).
func (w *Workspace) AnyOlder(age time.Duration) bool {
	ids, err := w.taskIDs()
	if err != nil {
		return true
	}
	dir, err := os.Open(w.TasksDir())
	if err != nil {
		return true
	}
	defer dir.Close()
	now := w.Now()
	var data []byte
	for _, id := range ids {
		data, err = journal.ReadFileAt(dir, id+".json", data)
		if err != nil {
			continue // removed meanwhile
		}
		i := bytes.LastIndex(data, updatedKey)
		if i < 0 {
			return true
		}
		rest := data[i+len(updatedKey):]
		end := bytes.IndexByte(rest, '"')
		if end < 0 {
			return true
		}
		t, err := time.Parse(time.RFC3339Nano, string(rest[:end]))
		if err != nil || now.Sub(t) >= age {
			return true
		}
	}
	return false
}
