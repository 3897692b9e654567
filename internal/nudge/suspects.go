package nudge

import (
	"bytes"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// suspectWords are what the record of a task that may be a suspect holds
// (its state's name, or a pending check).
var suspectWords = [][]byte{
	[]byte(`"` + StatePreparing + `"`), []byte(`"` + StateRunning + `"`), []byte(`"` + StatePrepared + `"`),
	[]byte(`"guard_pending"`),
}

// hasSuspectWord reports whether a record's bytes hold one of suspectWords.
func hasSuspectWord(data []byte) bool {
	for _, word := range suspectWords {
		if bytes.Contains(data, word) {
			return true
		}
	}
	return false
}

// suspectScan is what suspectRecords learns from every record's bytes,
// noted by Reconcile while it reads them under the workspace lock
// (Workspace.wantSuspects).
type suspectScan struct {
	ids     []string        // every record read, in id order
	suspect map[string]bool // those holding one of suspectWords
	bad     error           // the first other record that is not a JSON object
}

func (s *suspectScan) note(path, id string, data []byte) {
	s.ids = append(s.ids, id)
	if hasSuspectWord(data) {
		s.suspect[id] = true
	} else if err := journal.CheckObject(path, data); err != nil && s.bad == nil {
		s.bad = err
	}
}

// guardPendingTrue is how a record with a pending check says so.
var guardPendingTrue = []byte(`"guard_pending": true`)
