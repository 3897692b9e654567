package autodev

import (
	"context"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/age"
	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// Listing is what `git autodev restore` without an id shows.
type Listing struct {
	Enabled bool
	Entries []Entry // newest first
	// HeadIndex is the index in Entries of the checkpoint HEAD is at (the
	// oldest entry recording HEAD's commit, see Journal.ByCommit), or -1.
	HeadIndex int
	Head      string
	// Missing is true when checkpoints.json does not exist; History then
	// counts the checkpoints --rebuild would recover from history.
	Missing bool
	History int
}

// List reads the checkpoints for the list. It costs one git call for
// HEAD besides the configuration, however many checkpoints there are.
func (ws *Workspace) List(ctx context.Context) (*Listing, error) {
	on, err := ws.Enabled(ctx)
	if err != nil || !on {
		return &Listing{HeadIndex: -1}, err
	}
	j, err := ws.LoadJournal()
	if err != nil {
		return nil, err
	}
	l := &Listing{Enabled: true, HeadIndex: -1, Missing: j.Missing}
	if j.Missing {
		found, err := ws.recoverables(ctx)
		if err != nil {
			return nil, err
		}
		l.History = len(found)
		return l, nil
	}
	h, err := ws.Repo.Head(ctx)
	if err != nil {
		return nil, err
	}
	head := h.Commit
	l.Head = head
	n := len(j.Entries)
	l.Entries = make([]Entry, n)
	for i, e := range j.Entries {
		l.Entries[n-1-i] = e
	}
	for i, e := range l.Entries {
		if head != "" && e.Commit == head {
			l.HeadIndex = i // the last match in newest-first order
		}
	}
	return l, nil
}

// Line formats one entry as the list prints it:
// <id> <mark> <label>   <task> · <sha7> · <mode> · <age>, then
// " · squashed into <sha7>" for a squashed checkpoint.
func Line(e Entry, now time.Time, head bool) string {
	when := "—"
	if t, ok := e.When(); ok {
		when = age.Since(now, t)
	}
	var b strings.Builder
	b.WriteString(e.ID + " " + Mark(e.Type) + " " + e.Label + "   ")
	b.WriteString(orDash(e.Task) + " · " + Short(e.Commit) + " · " + orDash(e.Mode) + " · " + when)
	if e.Squashed != "" {
		b.WriteString(" · squashed into " + Short(e.Squashed))
	}
	if head {
		b.WriteString(" ← HEAD")
	}
	return b.String()
}

func orDash(s *string) string {
	if s == nil || *s == "" {
		return "—"
	}
	return *s
}

// historyCommits finds the commits a rebuild would take the journal from:
// autodev commits reachable from HEAD, the pre-restore branches and the
// checkpoint refs, plus whatever those refs pin.
func (ws *Workspace) historyCommits(ctx context.Context) ([]git.CommitInfo, error) {
	q := git.CommitQuery{
		Grep:     "^" + strings.TrimSpace(SubjectPrefix),
		Globs:    []string{refs.Checkpoints + "*"},
		Branches: []string{PreRestorePrefix + "*"},
	}
	if head, err := ws.Repo.Head(ctx); err != nil {
		return nil, err
	} else if !head.Unborn() {
		q.Revs = []string{head.Commit}
	}
	all, err := ws.Repo.FindCommits(ctx, q)
	if err != nil {
		return nil, err
	}
	var found []git.CommitInfo
	for _, c := range all {
		if strings.HasPrefix(c.Subject(), SubjectPrefix) {
			found = append(found, c)
		}
	}
	return found, nil
}
