package nudge

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/nudge/record"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// Summaries returns the summary of every task record, newest first. Each
// record is still read whole and checked to be valid JSON (a truncated or
// garbled record is an error naming it, as for List), but only the
// summary's fields are decoded; a record the fast reader is not sure of
// (escapes in a key, a key in another case, a field twice) is decoded in
// full. A record removed while listing is left out.
func (w *Workspace) Summaries() ([]*TaskSummary, error) {
	ids, err := w.taskIDs()
	if err != nil {
		return nil, err
	}
	out := make([]*TaskSummary, 0, len(ids))
	var data []byte
	for _, id := range ids {
		path := w.TaskPath(id)
		data, err = journal.ReadFile(path, data)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, err
		}
		s, err := record.DecodeSummary(path, data)
		if err != nil {
			return nil, err
		}
		if s.ID != id {
			return nil, &journal.CorruptError{Path: path, Err: fmt.Errorf("record is for %q, not %q", s.ID, id)}
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		a, _ := refs.Task.Number(out[i].ID)
		b, _ := refs.Task.Number(out[j].ID)
		return a > b
	})
	return out, nil
}
