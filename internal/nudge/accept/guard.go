// Package accept is git nudge guard accept: the user takes back, as their
// own, a change of the shared git settings that the guard put back, and
// the suspect tasks' records no longer hold it.
package accept

import (
	"context"
	"slices"

	"github.com/nudgethis/git-nudge/internal/nudge"
)

// Accepted is what Guard did.
type Accepted struct {
	Folder string   // the quarantine folder taken back
	Paths  []string // the settings files put in place again (for people)
	Tasks  []string // the tasks whose records no longer hold the change
}

// Guard is git nudge guard accept: the user says that the shared git
// settings the guard found changed and put back (the newest quarantine
// folder, or quarantine/<n>) were their own change. The versions found
// are put in place again, trusted from then on (guard.Accept), and the
// lines the guard added to the suspect tasks' records for them are
// removed (so their apply no longer refuses for them). With nothing to
// accept the error is guard.ErrNothingToAccept.
func Guard(ctx context.Context, w *nudge.Workspace, n string) (Accepted, error) {
	l, err := w.Lock(ctx, "git-nudge guard accept")
	if err != nil {
		return Accepted{}, err
	}
	defer l.Release()
	gd := w.Guard()
	acc, err := gd.Accept(ctx, n)
	res := Accepted{Folder: acc.Folder, Paths: acc.Paths}
	if err != nil {
		return res, err
	}
	for _, id := range acc.Tasks {
		t, err := w.Load(id)
		if err != nil {
			continue // dropped since
		}
		kept := slices.DeleteFunc(slices.Clone(t.ConfigChanges), func(line string) bool { return slices.Contains(acc.Lines, line) })
		if len(kept) == len(t.ConfigChanges) {
			continue
		}
		t.ConfigChanges = kept
		if len(kept) == 0 {
			t.ConfigChanges = nil
		}
		if err := w.Save(t); err != nil {
			return res, err
		}
		res.Tasks = append(res.Tasks, id)
	}
	return res, gd.MarkAccepted(acc)
}
