package oplog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// The pending record is a file in the git dir, not a log commit: a command
// refused with nothing changed then leaves no trace (no ref moved, no
// object written). It is written before the command changes anything.
func (l *Log) pendingDir() string { return filepath.Join(l.Repo.GitDir, "nudgethis-oplog-pending") }

func (l *Log) writePending(r *Recording) error {
	r.op.ID = "p" + strconv.Itoa(os.Getpid())
	if err := os.MkdirAll(l.pendingDir(), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r.op, "", " ")
	if err != nil {
		return err
	}
	return writeVisible(filepath.Join(l.pendingDir(), r.op.ID+".json"), b)
}

// writeVisible writes data to path atomically for readers (a temporary
// file renamed into place) without fsync: the pending record is there for
// a process that dies (kill, crash of the command), which leaves the page
// cache intact. After a power cut it may be missing; nothing of the
// user's depends on it (the commands' own journals are fsynced and say
// what was interrupted), and an undo checks every after value anyway.
// Two fsyncs per command were most of recording's remaining wall time on
// a busy disk.
func writeVisible(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".pending-")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		os.Remove(f.Name())
	}
	return werr
}

func (l *Log) removePending(r *Recording) error {
	err := os.Remove(filepath.Join(l.pendingDir(), "p"+strconv.Itoa(os.Getpid())+".json"))
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// Pending lists the pending records of this worktree (operations running
// now, or whose process died: Recovery required). Unreadable files are
// named in the error.
func (l *Log) Pending() ([]*Op, error) {
	ents, err := os.ReadDir(l.pendingDir())
	if err != nil {
		return nil, nil
	}
	var ops []*Op
	var bad error
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") || !strings.HasPrefix(e.Name(), "p") {
			continue
		}
		var op Op
		if err := journal.Read(filepath.Join(l.pendingDir(), e.Name()), &op); err != nil {
			bad = err
			continue
		}
		ops = append(ops, &op)
	}
	return ops, bad
}

// Unfinished drops from pending the records whose operation is in the log
// (a process killed after appending its record and before removing the
// pending file): same time, tool and command line.
func Unfinished(pending, ops []*Op) []*Op {
	var out []*Op
	for _, p := range pending {
		done := false
		for _, o := range ops {
			if o.Time.Equal(p.Time) && o.Tool == p.Tool && o.Kind == p.Kind && strings.Join(o.Args, "\x00") == strings.Join(p.Args, "\x00") {
				done = true
				break
			}
		}
		if !done {
			out = append(out, p)
		}
	}
	// Newest first, as the log.
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.After(out[j].Time) })
	return out
}
