package nudge

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// openPlain opens name in root for reading when it is a regular file: a
// symlink is refused (nothing outside root is reached), and a fifo swapped
// in after the look never blocks the open.
func openPlain(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	if st, err := root.Lstat(name); err != nil {
		return nil, nil, err
	} else if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a plain file", name)
	}
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a plain file", name)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// readPlain reads name in root when it is a regular file of at most max
// bytes (see openPlain).
func readPlain(root *os.Root, name string, max int64) ([]byte, error) {
	f, st, err := openPlain(root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > max {
		return nil, fmt.Errorf("%s is over %d bytes", name, max)
	}
	return io.ReadAll(io.LimitReader(f, max))
}

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
