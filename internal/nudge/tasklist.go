package nudge

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// taskIDs lists the ids that have a record, from the file names alone,
// in the order of their names.
func (w *Workspace) taskIDs() ([]string, error) {
	f, err := os.Open(w.TasksDir())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	ids, err := taskIDsIn(f)
	if err != nil {
		return nil, err
	}
	sort.Strings(ids)
	return ids, nil
}

// taskIDsIn lists the ids that have a record in the tasks folder dir,
// from the file names alone, in no particular order.
func taskIDsIn(dir *os.File) ([]string, error) {
	names, err := dir.Readdirnames(-1) // no entry's type needed
	if err != nil {
		return nil, err
	}
	ids := names[:0]
	for _, name := range names {
		if id, ok := strings.CutSuffix(name, ".json"); ok && refs.Task.Valid(id) {
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
// meanwhile is left out). pick may refuse a record with an error. A
// record listed as quiet (quietRecords) is not read: quietOne, when set,
// is told its id and may ask for it to be read and picked all the same.
func (w *Workspace) scanRecords(pick func(id string, data []byte) (bool, error), quietOne func(id string) bool) ([]*Task, error) {
	ids, err := w.taskIDs()
	if err != nil {
		return nil, err
	}
	q := w.quietRecordsOf()
	defer q.close()
	at := time.Now() // file times are the system's, not w.Now's
	var tasks []*Task
	var data []byte
	for _, id := range ids {
		key, haveKey, isQuiet := q.known(w, id)
		if isQuiet && (quietOne == nil || !quietOne(id)) {
			continue
		}
		path := w.TaskPath(id)
		data, err = journal.ReadFile(path, data)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		q.note(id, key, haveKey, quiet(path, data), at, data)
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
	q.keep(ids)
	q.save(ids)
	return tasks, nil
}

// Pending returns the pending tasks, oldest first: the order the queue's
// executor (runner.Work) runs them in.
//
// An executor asks this every second (git nudge work --watch, a dashboard
// server), so a record is only decoded when its bytes name the pending
// state, and only read when it is not listed as quiet (quietRecords: a
// quiet record is never pending): the cost of an idle executor is a stat
// of each record, not a read of every task ever made. Any other record
// read must still be a JSON object (a corrupt record is an error naming
// it, as for List).
func (w *Workspace) Pending() ([]*Task, error) {
	tasks, err := w.scanRecords(func(id string, data []byte) (bool, error) {
		if bytes.Contains(data, pendingWord) {
			return true, nil
		}
		return false, journal.CheckObject(w.TaskPath(id), data)
	}, nil)
	if err != nil {
		return nil, err
	}
	var out []*Task
	for _, t := range tasks {
		if t.State == StatePending {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, _ := refs.Task.Number(out[i].ID)
		b, _ := refs.Task.Number(out[j].ID)
		return a < b
	})
	return out, nil
}
