package autodev

import "context"

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
	rep.Orphaned = rep.Active && processGone(rep.RunPID)
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
	head, _, err := ws.Repo.ResolveCommit(ctx, "HEAD")
	if err != nil {
		return rep, err
	}
	rep.Head = head
	if e, ok := j.ByCommit(head); ok {
		rep.HeadEntry = &e
	}
	return rep, nil
}
