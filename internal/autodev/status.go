package autodev

import (
	"context"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/proc"
)

// Report is what `git autodev status` shows.
type Report struct {
	Enabled bool
	State   State
	Active  bool // a live process holds run.lock
	// Stale is true when state.json says running but no process holds
	// run.lock (the run was killed).
	Stale  bool
	RunPID int // the pid holding run.lock, when Active
	// Orphaned is true when the run is active but the git-autodev process
	// that took run.lock (RunPID) has ended: the command it started, which
	// inherited the lock, still runs.
	Orphaned    bool
	Checkpoints int    // entries in the journal
	Head        string // HEAD's commit ("" when unborn)
	HeadEntry   *Entry // the newest checkpoint HEAD is at, or nil
	Missing     bool   // checkpoints.json does not exist
	// History counts, when Missing, the checkpoints git autodev restore
	// --rebuild would recover from history.
	History int
	// Unrecorded are autodev/pre-restore-* branches whose commit no
	// journal entry records: work parked by a restore that stopped (was
	// killed, or its reset failed) before journaling it.
	Unrecorded []Parked
	// Leftovers are files killed git-autodev commands left in the git dir
	// (private indexes, an index.lock of theirs).
	Leftovers []Leftover
	// IndexLock is the user's index.lock when it exists and is not
	// provably autodev's ("" otherwise): a restore refuses while it is there.
	IndexLock string
	// RefLock is git's lock on HEAD or its branch when it exists
	// (git.Repo.HeadRefLock), as shown: a restore refuses while it is there.
	RefLock string
}

// RestorePoints is the number offered for a rewind: the checkpoints, when
// no run is active (0 otherwise).
func (r Report) RestorePoints() int {
	if r.Active || !r.Enabled {
		return 0
	}
	return r.Checkpoints
}

// Status reads the run state, the journal and HEAD. It changes nothing.
func (ws *Workspace) Status(ctx context.Context) (Report, error) {
	var rep Report
	on, err := ws.Enabled(ctx)
	if err != nil {
		return rep, err
	}
	rep.Enabled = on
	if rep.State, err = ws.LoadState(); err != nil {
		return rep, err
	}
	if rep.Active, rep.RunPID, err = ws.RunActive(); err != nil {
		return rep, err
	}
	rep.Stale = !rep.Active && rep.State.Status == StatusRunning
	rep.Orphaned = rep.Active && proc.Gone(rep.RunPID)
	j, err := ws.LoadJournal()
	if err != nil {
		return rep, err
	}
	rep.Missing = j.Missing
	rep.Checkpoints = len(j.Entries)
	if j.Missing && on {
		found, err := ws.recoverables(ctx)
		if err != nil {
			return rep, err
		}
		rep.History = len(found)
	}
	head, err := ws.Repo.Head(ctx)
	if err != nil {
		return rep, err
	}
	rep.Head = head.Commit
	if e, ok := j.ByCommit(head.Commit); ok {
		rep.HeadEntry = &e
	}
	if rep.Unrecorded, err = ws.unrecordedParked(ctx, j); err != nil {
		return rep, err
	}
	if rep.Leftovers, _, err = ws.leftovers(); err != nil {
		return rep, err
	}
	rep.IndexLock = ws.ForeignIndexLock(rep.Leftovers)
	if l := ws.Repo.HeadRefLock(); l != "" {
		rep.RefLock = ws.shown(l)
	}
	return rep, nil
}

// unrecordedParked lists the autodev/pre-restore-* branches whose commit
// is in no journal entry. A restore journals its parked commit once the
// tree is reset, so such a branch is work a restore parked and then did
// not finish with: it is named so that nobody has to find it by hand.
func (ws *Workspace) unrecordedParked(ctx context.Context, j *Journal) ([]Parked, error) {
	if j.Missing {
		return nil, nil // --rebuild takes them in; status says so
	}
	list, err := ws.Repo.ListRefs(ctx, "refs/heads/autodev/")
	if err != nil {
		return nil, err
	}
	var out []Parked
	for _, r := range list {
		name := strings.TrimPrefix(r.Name, "refs/heads/")
		if !strings.HasPrefix(name, PreRestorePrefix) {
			continue
		}
		if _, ok := j.ByCommit(r.Object); !ok {
			out = append(out, Parked{Branch: name, Commit: r.Object})
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	// The branches are shared by every worktree: name only the work
	// parked by a restore in this one.
	ids := make([]string, len(out))
	for i, p := range out {
		ids[i] = p.Commit
	}
	infos, err := ws.Repo.FindCommits(ctx, git.CommitQuery{Revs: ids, NoWalk: true})
	if err != nil {
		return nil, err
	}
	own, err := ws.newOwner(ctx)
	if err != nil {
		return nil, err
	}
	keep := map[string]bool{}
	for _, c := range infos {
		ok, err := own.mine(ctx, c)
		if err != nil {
			return nil, err
		}
		keep[c.ID] = ok
	}
	mine := out[:0]
	for _, p := range out {
		if keep[p.Commit] {
			mine = append(mine, p)
		}
	}
	return mine, nil
}
