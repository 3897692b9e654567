package autodev

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// recoverable is a commit a rebuild would turn into journal entries, with
// the checkpoint ids whose refs pin it (none for an unpinned autodev
// commit).
type recoverable struct {
	git.CommitInfo
	IDs []string
}

// recoverables finds what a lost checkpoints.json can be rebuilt from:
// every commit pinned under refs/autodev/checkpoints/ (with its id), and
// every commit whose subject starts with "autodev: " reachable from HEAD,
// from those refs or from the autodev/pre-restore-* branches, keeping only
// those of this worktree (see owner). Pinned commits come first, by id;
// then the unpinned ones, parents first.
func (ws *Workspace) recoverables(ctx context.Context) ([]recoverable, error) {
	pins, err := ws.Repo.ListRefs(ctx, refs.Checkpoints)
	if err != nil {
		return nil, err
	}
	idsOf := map[string][]string{}
	for _, p := range pins {
		id := strings.TrimPrefix(p.Name, refs.Checkpoints)
		if refs.Checkpoint.Valid(id) {
			idsOf[p.Object] = append(idsOf[p.Object], id)
		}
	}
	found, err := ws.historyCommits(ctx)
	if err != nil {
		return nil, err
	}
	info := map[string]git.CommitInfo{}
	for _, c := range found {
		info[c.ID] = c
	}
	var need []string
	for commit := range idsOf {
		if _, ok := info[commit]; !ok {
			need = append(need, commit)
		}
	}
	if len(need) > 0 {
		sort.Strings(need)
		more, err := ws.Repo.FindCommits(ctx, git.CommitQuery{Revs: need, NoWalk: true})
		if err != nil {
			return nil, err
		}
		for _, c := range more {
			info[c.ID] = c
		}
	}
	var pinned, unpinned []recoverable
	for commit, ids := range idsOf {
		c, ok := info[commit]
		if !ok {
			continue // the pinned object is gone or is not a commit
		}
		for _, id := range ids {
			pinned = append(pinned, recoverable{CommitInfo: c, IDs: []string{id}})
		}
	}
	sort.Slice(pinned, func(i, j int) bool {
		a, _ := refs.Checkpoint.Number(pinned[i].IDs[0])
		b, _ := refs.Checkpoint.Number(pinned[j].IDs[0])
		return a < b
	})
	for _, c := range found {
		if len(idsOf[c.ID]) == 0 {
			unpinned = append(unpinned, recoverable{CommitInfo: c})
		}
	}
	// The refs and branches are shared by every worktree of the
	// repository; the journal is this worktree's.
	own, err := ws.newOwner(ctx)
	if err != nil {
		return nil, err
	}
	var out []recoverable
	for _, rc := range append(pinned, unpinned...) {
		ok, err := own.mine(ctx, rc.CommitInfo)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, rc)
		}
	}
	return out, nil
}

// entryFromCommit reads a checkpoint entry back from its commit: type and
// label from the subject, task and mode from the trailers, time from the
// committer date.
func entryFromCommit(id string, c git.CommitInfo) Entry {
	subject := c.Subject()
	e := Entry{ID: id, Commit: c.ID, Time: c.Time.UTC().Format(time.RFC3339)}
	label, ok := strings.CutPrefix(subject, SubjectPrefix)
	switch {
	case !ok:
		e.Type, e.Label = TypeTask, taskLabel(subject)
	case label == BaselineLabel:
		e.Type, e.Label = TypeBaseline, label
	case strings.HasPrefix(label, "pre-restore — "):
		e.Type, e.Label = TypePreRestore, label
	default:
		e.Type, e.Label = TypeTask, label
	}
	for _, l := range strings.Split(c.Message, "\n") {
		if v, ok := strings.CutPrefix(l, "Autodev-Task: "); ok {
			v := strings.TrimSpace(v)
			e.Task = &v
		}
		if v, ok := strings.CutPrefix(l, "Autodev-Mode: "); ok {
			v := strings.TrimSpace(v)
			e.Mode = &v
		}
		if v, ok := strings.CutPrefix(l, worktreeTrailer); ok {
			e.Worktree = unquoteTrailer(v)
		}
		if v, ok := strings.CutPrefix(l, branchTrailer); ok {
			e.Branch = unquoteTrailer(v)
		}
	}
	return e
}

// Rebuild recreates a missing checkpoints.json from history: pinned
// checkpoints keep their ids, unpinned autodev commits get new ids (and
// refs). An existing journal, even a corrupt one, is never replaced.
func (ws *Workspace) Rebuild(ctx context.Context) (*Journal, error) {
	on, err := ws.Enabled(ctx)
	if err != nil {
		return nil, err
	}
	if !on {
		return nil, ErrCheckpointsOff
	}
	lk, err := ws.lock(ctx, "restore --rebuild")
	if err != nil {
		return nil, err
	}
	defer lk.Release()
	j, err := ws.LoadJournal()
	if err != nil {
		return nil, err
	}
	if !j.Missing {
		return nil, fmt.Errorf("%s exists; --rebuild only recreates a missing journal: move it aside first to rebuild it from history", ws.CheckpointsPath())
	}
	list, err := ws.recoverables(ctx)
	if err != nil {
		return nil, err
	}
	kept, err := ws.keptKinds()
	if err != nil {
		return nil, err
	}
	j = &Journal{Missing: true, Entries: []Entry{}}
	for _, rc := range list {
		if len(rc.IDs) == 0 {
			continue
		}
		e := entryFromCommit(rc.IDs[0], rc.CommitInfo)
		if k, ok := kept[e.ID]; ok && k.Commit == e.Commit {
			// An entry its commit does not describe: its own type,
			// label, task and mode, as they were journaled.
			e = k
			e.Extra, e.Squashed = nil, ""
		}
		j.Entries = append(j.Entries, e)
	}
	for _, rc := range list {
		if len(rc.IDs) > 0 {
			continue
		}
		id, err := ws.pin(ctx, j, rc.ID)
		if err != nil {
			return nil, err
		}
		j.Entries = append(j.Entries, entryFromCommit(id, rc.CommitInfo))
	}
	if err := ws.saveJournal(j); err != nil {
		return nil, err
	}
	return j, nil
}
