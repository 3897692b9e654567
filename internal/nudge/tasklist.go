package nudge

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strings"

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

// unsettled loads the records that may be in a state Reconcile settles.
// Every command runs it, so a record is only decoded when its bytes hold
// one of those state names: the cost stays that of reading the files, not
// of decoding every task ever made.
func (w *Workspace) unsettled() ([]*Task, error) {
	ids, err := w.taskIDs()
	if err != nil {
		return nil, err
	}
	var tasks []*Task
	for _, id := range ids {
		data, err := os.ReadFile(w.TaskPath(id))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, err
		}
		maybe := false
		for _, s := range unsettledStates {
			if bytes.Contains(data, s) {
				maybe = true
				break
			}
		}
		if !maybe {
			continue
		}
		t, err := w.Load(id)
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, t)
	}
	return tasks, nil
}
