package nudge

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/nudgethis/git-nudge/internal/proc"
)

// GuardAccepted is what AcceptGuard did.
type GuardAccepted struct {
	Folder string   // the quarantine folder taken back
	Paths  []string // the settings files put in place again (for people)
	Tasks  []string // the tasks whose records no longer hold the change
}

// AcceptGuard is git nudge guard accept: the user says that the shared git
// settings the guard found changed and put back (the newest quarantine
// folder, or quarantine/<n>) were their own change. The versions found
// are put in place again, trusted from then on (guard.Accept), and the
// lines the guard added to the suspect tasks' records for them are
// removed (so their apply no longer refuses for them). With nothing to
// accept the error is guard.ErrNothingToAccept.
func (w *Workspace) AcceptGuard(ctx context.Context, n string) (GuardAccepted, error) {
	l, err := w.Lock(ctx, "git-nudge guard accept")
	if err != nil {
		return GuardAccepted{}, err
	}
	defer l.Release()
	gd := w.Guard()
	acc, err := gd.Accept(ctx, n)
	res := GuardAccepted{Folder: acc.Folder, Paths: acc.Paths}
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

// suspectNames are the suspect tasks for people, with the processes that
// make them suspects: "t3 (running: its command, pid 4242, outlived
// git-nudge)".
func (w *Workspace) suspectNames(ts []*Task) []string {
	var out []string
	for _, t := range ts {
		var why []string
		if nudgePID, cmdPID, ok := w.Orphaned(t); ok {
			if cmdPID > 0 {
				why = append(why, fmt.Sprintf("its command (pid %d) or something it started outlived git-nudge (pid %d)", cmdPID, nudgePID))
			} else {
				why = append(why, fmt.Sprintf("something it started outlived git-nudge (pid %d)", nudgePID))
			}
		} else {
			if t.PID != nil && *t.PID != os.Getpid() && !proc.Gone(*t.PID) && (t.State == StatePreparing || t.State == StateRunning) {
				why = append(why, fmt.Sprintf("git-nudge pid %d is running it", *t.PID))
			}
			if t.CommandPID != nil {
				if proc.Gone(*t.CommandPID) {
					why = append(why, fmt.Sprintf("its command ran as pid %d", *t.CommandPID))
				} else {
					why = append(why, fmt.Sprintf("its command pid %d is running", *t.CommandPID))
				}
			}
		}
		if t.Worktree != nil && len(why) == 0 {
			why = append(why, "its worktree "+QuotePath(*t.Worktree))
		}
		name := t.ID + " (" + StateLabel(t.State)
		if len(why) > 0 {
			name += ": " + strings.Join(why, ", ")
		}
		out = append(out, name+")")
	}
	return out
}
