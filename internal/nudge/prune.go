package nudge

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/retain"
)

// PruneOptions is a `git nudge prune`.
type PruneOptions struct {
	// OlderThan: only tasks whose record has not changed for this long
	// (0: any age).
	OlderThan time.Duration
	// Keep: the Keep newest tasks are kept whatever their age (0: none).
	Keep int
	// DryRun says what would be dropped and changes nothing.
	DryRun bool
	// Except are tasks never pruned (those the command that triggered an
	// automatic prune names).
	Except []string
	// Budget, when set, stops the pruning once it has worked this long;
	// the rest is left for the next time (Stopped).
	Budget time.Duration
}

// PruneKept is a task that matched the age bound and was kept, and why.
type PruneKept struct {
	ID     string `json:"id"`
	State  string `json:"state"`
	Reason string `json:"reason"`
}

// PruneResult is what a prune dropped (or, dry, would drop) and kept.
type PruneResult struct {
	Dropped []string    `json:"dropped"`
	Kept    []PruneKept `json:"kept"`
	// Recent counts the tasks too young (or among the --keep newest) to
	// be considered.
	Recent int `json:"recent"`
	// Stopped is true when Budget ran out before every candidate was
	// dropped; Left counts those left for next time.
	Stopped bool `json:"stopped,omitempty"`
	Left    int  `json:"left,omitempty"`
	DryRun  bool `json:"dry_run"`
}

// pruneKeepReason says why t is never pruned, or "".
func (w *Workspace) pruneKeepReason(ctx context.Context, t *Task) string {
	switch t.State {
	case StateApplied:
		return "applied and not saved: its changes are in your work tree (save or undo it first)"
	case StateApplying, StateUndoing:
		return "an apply or undo of it has not finished"
	case StateRecoveryRequired:
		return "Recovery required: its record is what repairing the files needs (git nudge recover " + t.ID + ")"
	case StatePreparing, StateRunning, StateValidating:
		return "running"
	case StatePending:
		return "queued: git nudge work will run it"
	}
	if r := w.dropRefusal(ctx, t, false); r != nil {
		if len(r.Reasons) > 0 {
			return r.Reasons[0]
		}
		return r.What
	}
	return ""
}

// Prune drops the tasks older than o.OlderThan beyond the o.Keep newest,
// through drop's own removal (worktree, refs, logs, record), except the
// tasks the user could still want: applied and not saved, running or
// validating, Recovery required, queued, or with work in their worktree
// that no capture recorded; those are kept and listed with the reason.
func (w *Workspace) Prune(ctx context.Context, o PruneOptions) (*PruneResult, error) {
	start := time.Now()
	l, err := w.Lock(ctx, "git-nudge prune")
	if err != nil {
		return nil, err
	}
	defer l.Release()
	tasks, err := w.List() // newest first
	if err != nil {
		return nil, err
	}
	res := &PruneResult{Dropped: []string{}, Kept: []PruneKept{}, DryRun: o.DryRun}
	except := map[string]bool{}
	for _, id := range o.Except {
		except[id] = true
	}
	now := w.Now()
	var old []*Task
	for i, t := range tasks {
		if i < o.Keep || except[t.ID] || (o.OlderThan > 0 && now.Sub(t.Updated) < o.OlderThan) {
			res.Recent++
			continue
		}
		old = append(old, t)
	}
	// Oldest first: a prune stopped by its budget leaves the newest. Each
	// one is looked at right before it goes (the look can cost git
	// processes), and the first always is, so that a prune always makes
	// progress.
	for i, j := 0, len(old)-1; i < j; i, j = i+1, j-1 {
		old[i], old[j] = old[j], old[i]
	}
	for i, t := range old {
		if o.Budget > 0 && i > 0 && time.Since(start) > o.Budget {
			res.Stopped, res.Left = true, len(old)-i
			break
		}
		if reason := w.pruneKeepReason(ctx, t); reason != "" {
			res.Kept = append(res.Kept, PruneKept{ID: t.ID, State: StateLabel(t.State), Reason: reason})
			continue
		}
		if !o.DryRun {
			if err := w.remove(ctx, t, false); err != nil {
				return res, fmt.Errorf("pruning %s: %w", t.ID, err)
			}
		}
		res.Dropped = append(res.Dropped, t.ID)
	}
	// Kept newest first, as the list shows tasks.
	for i, j := 0, len(res.Kept)-1; i < j; i, j = i+1, j-1 {
		res.Kept[i], res.Kept[j] = res.Kept[j], res.Kept[i]
	}
	return res, nil
}

// Retention reads nudge.retention: the age past which tasks are pruned
// automatically (0, nil when unset).
func (w *Workspace) Retention(ctx context.Context) (time.Duration, error) {
	return retain.Setting(ctx, w.Repo, "nudge")
}

// PruneStamp is the file that says when automatic pruning last finished.
func (w *Workspace) PruneStamp() retain.Stamp {
	return retain.Stamp(w.Dir + "/prune-stamp")
}

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
	ids, err := w.taskIDs()
	if err != nil {
		return true
	}
	dir, err := os.Open(w.TasksDir())
	if err != nil {
		return true
	}
	defer dir.Close()
	q := w.quietRecordsOf()
	defer q.close()
	now := w.Now()
	var data []byte
	for _, id := range ids {
		if _, _, isQuiet := q.known(id, w.TaskPath(id)); isQuiet {
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
