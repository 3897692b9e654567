package save

import (
	"context"
	"fmt"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/nudge"
)

// Reverted is the state of a save whose commit landed but which a
// later commit undid before the save was finished (the index step had not
// run, and a git commit made with that index put the paths back): its
// tasks are left applied, so that they can be saved again.
const Reverted = "reverted"

// Pending describes, without changing anything, each save that a
// process which died left in "saving": where it stands, what a plain git
// commit would do to it now, and what the next git nudge save does with
// it. list prints them, so that an interrupted save is never silent.
func Pending(ctx context.Context, w *nudge.Workspace) ([]string, error) {
	saves, err := w.LoadSaves()
	if err != nil {
		return nil, err
	}
	var notes []string
	for i := range saves {
		e := &saves[i]
		if e.State != nudge.SaveSaving {
			continue
		}
		stand, back, err := classifySave(ctx, w, e)
		if err != nil {
			return nil, err
		}
		br := strings.TrimPrefix(e.Branch, "refs/heads/")
		switch stand {
		case saveLanded:
			stale, err := staleIndexPaths(ctx, w, e)
			if err != nil {
				return nil, err
			}
			if len(stale) == 0 {
				notes = append(notes, fmt.Sprintf("save %s was interrupted after %s moved to %s; run git nudge save to finish it (its tasks are not yet marked saved)", e.ID, br, nudge.Short(e.Commit)))
				break
			}
			notes = append(notes, fmt.Sprintf("save %s was interrupted after %s moved to %s, before the index was updated: the index still holds %s as before the save, so a git commit now would undo it; run git nudge save to finish it", e.ID, br, nudge.Short(e.Commit), pathCount(stale)))
		case saveUnmoved:
			notes = append(notes, fmt.Sprintf("save %s was interrupted before %s moved; git nudge save rolls it back (its tasks stay applied)", e.ID, br))
		case saveLost:
			notes = append(notes, fmt.Sprintf("save %s was interrupted and %s now points at neither its parent %s nor its commit %s; see %s (git log %s)", e.ID, br, nudge.Short(e.Parent), nudge.Short(e.Commit), w.SavesPath(), br))
		case saveUndone:
			notes = append(notes, revertedNote(e, br, back, "git nudge save leaves its tasks applied, so that they can be saved again"))
		case saveFollowed:
			notes = append(notes, fmt.Sprintf("save %s was interrupted after %s moved to %s, and later commits followed; git nudge save marks its tasks saved", e.ID, br, nudge.Short(e.Commit)))
		}
	}
	return notes, nil
}

// saveStand is where a save left in "saving" stands, as its branch shows.
type saveStand int

const (
	// saveLanded: the branch points at the save's commit.
	saveLanded saveStand = iota
	// saveUnmoved: the branch points at the save's parent (or is still
	// unborn, as it was before the save).
	saveUnmoved
	// saveFollowed: the save's commit landed and later commits followed.
	saveFollowed
	// saveUndone: as saveFollowed, but a later commit put some of the
	// save's paths back as they were before it.
	saveUndone
	// saveLost: the branch points at neither the parent nor anything
	// that descends from the save's commit.
	saveLost
)

// classifySave tells where interrupted save e stands by where its branch
// points now; for saveUndone it also returns the paths put back.
func classifySave(ctx context.Context, w *nudge.Workspace, e *nudge.SaveEntry) (saveStand, []string, error) {
	at, ok, err := w.Repo.ReadRef(ctx, e.Branch)
	if err != nil {
		return 0, nil, err
	}
	switch {
	case ok && at == e.Commit:
		return saveLanded, nil, nil
	case (ok && e.Parent != "" && at == e.Parent) || (!ok && e.Parent == ""):
		return saveUnmoved, nil, nil
	}
	descends := false
	if ok {
		descends, _ = w.Repo.IsAncestor(ctx, e.Commit, at)
	}
	if !descends {
		return saveLost, nil, nil
	}
	back, err := revertedPaths(ctx, w, e, at)
	if err != nil {
		return 0, nil, err
	}
	if len(back) > 0 {
		return saveUndone, back, nil
	}
	return saveFollowed, nil, nil
}

// revertedNote says that a later commit undid an interrupted save.
func revertedNote(e *nudge.SaveEntry, br string, back []string, next string) string {
	return fmt.Sprintf("save %s was interrupted after %s moved to %s, and a later commit put %s back as before the save (a git commit made with the index the interrupted save left behind does that); %s", e.ID, br, nudge.Short(e.Commit), pathCount(back), next)
}

// pathCount is "1 of its paths (a.txt)", "3 of its paths (a, b, c)".
func pathCount(paths []string) string {
	shown := paths
	more := ""
	if len(shown) > 5 {
		shown, more = shown[:5], ", ..."
	}
	q := make([]string, len(shown))
	for i, p := range shown {
		q[i] = nudge.QuotePath(p)
	}
	n := "1 of its paths"
	if len(paths) > 1 {
		n = fmt.Sprintf("%d of its paths", len(paths))
	}
	return n + " (" + strings.Join(q, ", ") + more + ")"
}

// staleIndexPaths lists the paths of save e whose entry in the user's
// index is not the one e sets (the commit's, or the re-based one its
// journal entry names): the index step has not run.
func staleIndexPaths(ctx context.Context, w *nudge.Workspace, e *nudge.SaveEntry) ([]string, error) {
	saved, err := savedIndexEntries(ctx, w, e)
	if err != nil {
		return nil, err
	}
	idx, err := w.Repo.IndexEntries(ctx, e.Paths)
	if err != nil {
		return nil, err
	}
	var out []string
	for i := range saved {
		if !sameEntry(saved[i], idx[i]) {
			out = append(out, saved[i].Path)
		}
	}
	return out, nil
}

// revertedPaths lists the paths of save e that the commit tip (which
// descends from e's commit) holds as e's parent did, not as e saved them:
// a later commit put them back.
func revertedPaths(ctx context.Context, w *nudge.Workspace, e *nudge.SaveEntry, tip string) ([]string, error) {
	saved, err := w.Repo.TreeEntries(ctx, e.Commit, e.Paths)
	if err != nil {
		return nil, err
	}
	now, err := w.Repo.TreeEntries(ctx, tip, e.Paths)
	if err != nil {
		return nil, err
	}
	before := make([]git.IndexEntry, len(e.Paths))
	for i, p := range e.Paths {
		before[i] = git.IndexEntry{Path: p}
	}
	if e.Parent != "" {
		if before, err = w.Repo.TreeEntries(ctx, e.Parent, e.Paths); err != nil {
			return nil, err
		}
	}
	var out []string
	for i := range saved {
		if sameEntry(now[i], saved[i]) {
			continue
		}
		// As the parent had it, or as the user's index held it before
		// the save (a staged edit the save would have re-based).
		old, rebased := preSaveIndex(e, saved[i].Path)
		if sameEntry(now[i], before[i]) || (rebased && sameEntry(now[i], old)) {
			out = append(out, saved[i].Path)
		}
	}
	return out, nil
}

func sameEntry(a, b git.IndexEntry) bool { return a.Mode == b.Mode && a.Blob == b.Blob }
