package nudge

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// taskIDs lists the ids that have a record, from the file names alone.
func (w *Workspace) taskIDs() ([]string, error) {
	ents, err := os.ReadDir(w.tasksDir())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var ids []string
	for _, e := range ents {
		if id, ok := strings.CutSuffix(e.Name(), ".json"); ok && refs.Task.Valid(id) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// unsettledStates are the states Reconcile looks at.
var unsettledStates = [][]byte{
	[]byte(`"` + StatePreparing + `"`), []byte(`"` + StateRunning + `"`), []byte(`"` + StateValidating + `"`),
	[]byte(`"` + StateApplying + `"`), []byte(`"` + StateUndoing + `"`),
}

// ingQuote ends each of unsettledStates.
var ingQuote = []byte(`ing"`)

// mayBeUnsettled reports whether one of unsettledStates appears in data:
// one search for what ends them all, then a look at what precedes.
func mayBeUnsettled(data []byte) bool {
	for i := 0; ; {
		j := bytes.Index(data[i:], ingQuote)
		if j < 0 {
			return false
		}
		end := i + j + len(ingQuote)
		for _, s := range unsettledStates {
			if end >= len(s) && bytes.Equal(data[end-len(s):end], s) {
				return true
			}
		}
		i += j + 1
	}
}

// scanRecords reads every task record, in id order, and returns those
// pick chooses from their bytes, decoded in full (a record removed
// meanwhile is left out). pick may refuse a record with an error.
func (w *Workspace) scanRecords(pick func(id string, data []byte) (bool, error)) ([]*Task, error) {
	ids, err := w.taskIDs()
	if err != nil {
		return nil, err
	}
	var tasks []*Task
	var data []byte
	for _, id := range ids {
		path := w.TaskPath(id)
		data, err = journal.ReadFile(path, data)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if ok, err := pick(id, data); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		var t Task
		if err := journal.Decode(path, data, &t); err != nil {
			return nil, err
		}
		if t.ID != id {
			return nil, &journal.CorruptError{Path: path, Err: fmt.Errorf("record is for %q, not %q", t.ID, id)}
		}
		tasks = append(tasks, &t)
	}
	return tasks, nil
}
