package autodev

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/retain"
)

// PruneOptions is a `git autodev prune`.
type PruneOptions struct {
	OlderThan time.Duration // 0: any age
	Keep      int           // the Keep newest checkpoints are kept
	DryRun    bool
	// Except are checkpoints never pruned (one the command names).
	Except []string
}

// PruneKept is a checkpoint past the bound that was kept, and why.
type PruneKept struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// PruneResult is what a prune dropped (or, dry, would drop) and kept.
type PruneResult struct {
	Dropped []string `json:"dropped"`
	// Kept lists the checkpoints past the bound that were kept; History
	// counts those of them in the current branch's history (not listed
	// one by one).
	Kept    []PruneKept `json:"kept"`
	History int         `json:"in_history"`
	Recent  int         `json:"recent"`
	DryRun  bool        `json:"dry_run"`
}

// Prune drops the checkpoints older than o.OlderThan beyond the o.Keep
// newest: their refs (refs/autodev/checkpoints/<id>) and their entries in
// checkpoints.json, in one ref transaction and one journal write. Never
// those in the current branch's history (HEAD reaches their commit: the
// restore points the list offers for it, which cost nothing since the
// branch keeps their objects anyway) or in another branch's (autodev/
// branches aside), the one HEAD is at, nor any
// checkpoint newer than a run that is still active. Checkpoint ids stay
// unused (the high-water mark), and op undo brings refs and entries back.
func (ws *Workspace) Prune(ctx context.Context, o PruneOptions) (*PruneResult, error) {
	lk, err := ws.lock(ctx, "prune")
	if err != nil {
		return nil, err
	}
	defer lk.Release()
	j, err := ws.LoadJournal()
	if err != nil {
		return nil, err
	}
	res := &PruneResult{Dropped: []string{}, Kept: []PruneKept{}, DryRun: o.DryRun}
	if j.Missing {
		return res, nil
	}
	head, err := ws.Repo.Head(ctx)
	if err != nil {
		return nil, err
	}
	pinned, err := ws.Repo.RefsUnder(ctx, refs.Checkpoints)
	if err != nil {
		return nil, err
	}
	except := map[string]bool{}
	for _, id := range o.Except {
		except[id] = true
	}
	// A run still active keeps every checkpoint made since it started.
	var runSince time.Time
	if active, _, err := ws.RunActive(); err == nil && active {
		if st, err := ws.LoadState(); err == nil {
			runSince, _ = time.Parse(time.RFC3339, st.Since)
		}
		if runSince.IsZero() {
			runSince = time.Unix(0, 0)
		}
	}
	now := ws.Now()
	n := len(j.Entries)
	var candidates []int
	var commits []string
	for i, e := range j.Entries {
		when, ok := e.When()
		switch {
		case n-i <= o.Keep || except[e.ID]:
			res.Recent++
		case !ok:
			res.Kept = append(res.Kept, PruneKept{ID: e.ID, Reason: "its time cannot be read"})
		case o.OlderThan > 0 && now.Sub(when) < o.OlderThan:
			res.Recent++
		case !runSince.IsZero() && !when.Before(runSince):
			res.Kept = append(res.Kept, PruneKept{ID: e.ID, Reason: "made during the run still active"})
		case e.Commit == head.Commit:
			res.Kept = append(res.Kept, PruneKept{ID: e.ID, Reason: "HEAD is at it"})
		default:
			candidates = append(candidates, i)
			commits = append(commits, e.Commit)
		}
	}
	// The current branch's history, and every other branch's but the
	// autodev/ ones (a pre-restore branch holds the very work a restore
	// left behind).
	from := []string{head.Commit}
	branches, err := ws.Repo.RefsUnder(ctx, "refs/heads/")
	if err != nil {
		return nil, err
	}
	for name, id := range branches {
		if !strings.HasPrefix(name, BranchPrefix) {
			from = append(from, id)
		}
	}
	off, err := ws.Repo.NotReachable(ctx, commits, from)
	if err != nil {
		return nil, err
	}
	drop := map[int]bool{}
	var ups []git.RefUpdate
	for _, i := range candidates {
		e := j.Entries[i]
		if !off[e.Commit] {
			res.History++ // in a branch's history
			continue
		}
		drop[i] = true
		res.Dropped = append(res.Dropped, e.ID)
		if old, ok := pinned[refs.Checkpoint.Ref(e.ID)]; ok && old == e.Commit {
			ups = append(ups, git.RefUpdate{Name: refs.Checkpoint.Ref(e.ID), New: ws.Repo.ZeroID(), Old: old})
		}
	}
	if o.DryRun || len(drop) == 0 {
		return res, nil
	}
	// The journal first: an entry without its ref is one a rebuild finds
	// again, while a ref without its entry would be a checkpoint listed by
	// nothing.
	kept := make([]Entry, 0, n-len(drop))
	for i, e := range j.Entries {
		if !drop[i] {
			kept = append(kept, e)
		}
	}
	j.Entries = kept
	if err := ws.saveJournal(j); err != nil {
		return nil, err
	}
	if len(ups) > 0 {
		if err := ws.Repo.UpdateRefs(ctx, "autodev: prune "+strconv.Itoa(len(ups))+" checkpoint(s)", ups...); err != nil {
			return nil, fmt.Errorf("checkpoints.json no longer lists %d checkpoint(s), but removing their refs failed (git autodev op undo puts the entries back): %w", len(drop), err)
		}
	}
	return res, nil
}

// Retention reads autodev.retention (0, nil when unset).
func (ws *Workspace) Retention(ctx context.Context) (time.Duration, error) {
	return retain.Setting(ctx, ws.Repo, "autodev")
}

// PruneStamp is the file that says when automatic pruning last finished.
func (ws *Workspace) PruneStamp() retain.Stamp {
	return retain.Stamp(filepath.Join(ws.Dir, "prune-stamp"))
}

// AnyOlder reports whether checkpoints.json lists a checkpoint made at
// least age ago, read without the lock: what automatic pruning looks at
// first, so that the usual day, with nothing old, takes no lock, runs no
// git and records no operation. A journal it cannot read counts as old
// (Prune then reports it); an entry whose time cannot be read does not
// (Prune keeps it).
func (ws *Workspace) AnyOlder(age time.Duration) bool {
	j, err := ws.LoadJournal()
	if err != nil {
		return true
	}
	now := ws.Now()
	for _, e := range j.Entries {
		if when, ok := e.When(); ok && now.Sub(when) >= age {
			return true
		}
	}
	return false
}
