package apply

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/patchfiles"
	"github.com/nudgethis/git-nudge/internal/snapshot"
)

// Undo puts every path of applied task id back as it was before the apply.
// It is refused unless the task is applied with a complete undo record,
// none of it was saved in a commit, HEAD is where it was applied, and every
// path is still exactly as the apply left it. Then the record goes to
// undoing, files are re-checked, restored (writes first, removals last) and
// verified, and the record goes to undone. Commits, the index and files
// outside the patch are never touched.
func Undo(ctx context.Context, w *nudge.Workspace, id string) (*Outcome, error) {
	return UndoWith(ctx, w, id, UndoOptions{})
}

// UndoOptions are the choices of an undo.
type UndoOptions struct {
	// Paths limits the undo to the applied paths these pathspecs match
	// (as git diff reads them, relative to Dir); none: every applied path.
	Paths []string
	Dir   string
}

// UndoWith is Undo of the paths o names: those are put back, the record
// keeps the others applied (the task stays applied until none is).
func UndoWith(ctx context.Context, w *nudge.Workspace, id string, o UndoOptions) (*Outcome, error) {
	specs, err := w.Pathspecs(o.Dir, o.Paths)
	if err != nil {
		return nil, err
	}
	faults := "undo"
	if len(o.Paths) > 0 {
		faults = "undo-paths"
	}
	var ignored []string
	undone := map[string]bool{}
	out, err := move(ctx, w, id, direction{
		verb: "undo", faults: faults, done: "restored", since: "since " + id + " was applied",
		plan: func(ctx context.Context, ops *patchfiles.FileOps, t *nudge.Task, head git.Head) ([]patchfiles.Step, []string, string, error) {
			selected, err := selectPaths(ctx, w, t, specs)
			if err != nil {
				return nil, nil, "", err
			}
			return planUndo(ctx, w, ops, t, head, selected, &ignored)
		},
		begin: func(t *nudge.Task, steps []patchfiles.Step, _ git.Head) {
			for _, s := range steps {
				undone[s.Path] = true
			}
			t.State = nudge.StateUndoing
		},
		finish: func(t *nudge.Task, now time.Time) {
			if n, _ := t.AppliedCount(); n > len(undone) {
				// Some paths stay applied: the record keeps only those.
				u := *t.Undo
				u.Before, u.After = dropPaths(u.Before, undone), dropPaths(u.After, undone)
				t.Undo, t.State = &u, nudge.StateApplied
				t.Conflicts = dropStrings(t.Conflicts, undone)
				return
			}
			t.State, t.UndoneAt, t.Conflicts = nudge.StateUndone, &now, nil
		},
		changedNext: undoChangedNext,
	})
	if out != nil {
		out.Ignored = ignored
	}
	return out, err
}

func undoChangedNext(id string) string {
	return fmt.Sprintf("Your later changes were kept. Undo only restores files that are exactly as the apply left them: "+
		"bring those back to that state, or restore the rest by hand (git nudge show %s lists undo.before and undo.after).", id)
}

// planUndo makes the steps of undoing t and every reason not to.
func planUndo(ctx context.Context, w *nudge.Workspace, ops *patchfiles.FileOps, t *nudge.Task, head git.Head, selected map[string]bool, ignored *[]string) ([]patchfiles.Step, []string, string, error) {
	var rf nudge.ReasonList
	add := rf.Add
	done := func() ([]patchfiles.Step, []string, string, error) { return nil, rf.Reasons, rf.Next(), nil }

	commit, saved, err := savedIn(ctx, w, t)
	if err != nil {
		return nil, nil, "", err
	}
	switch {
	case saved && commit != "":
		add(fmt.Sprintf("%s is part of the saved version %s; undo never rewrites commits", t.ID, nudge.Short(commit)),
			fmt.Sprintf("To take it back, revert that commit with git: git revert %s", commit))
		return done()
	case saved:
		add(t.ID+" is part of a saved version; undo never rewrites commits",
			"To take it back, revert the commit that saved it with git (git revert <commit>).")
		return done()
	}
	switch t.State {
	case nudge.StateApplied:
	case nudge.StateRecoveryRequired:
		add(t.ID+" needs recovery: an apply or undo of it was interrupted, so its files are in an unknown state",
			fmt.Sprintf("git nudge recover %s shows where each file stands; resolve them by hand.", t.ID))
		return done()
	case nudge.StateUndone:
		add(t.ID+" is already undone", fmt.Sprintf("git nudge apply %s applies it again.", t.ID))
		return done()
	default:
		add(fmt.Sprintf("%s is not applied (it is %s)", t.ID, nudge.StateLabel(t.State)), "")
		return done()
	}
	steps, ok := patchfiles.UndoSteps(t.Undo)
	if !ok {
		add(t.ID+" has no complete undo record, so it needs manual handling",
			fmt.Sprintf("git nudge show %s lists the files of its patch; put them back by hand.", t.ID))
		return done()
	}
	if selected != nil {
		// Only the named paths, of those applied.
		var pick []patchfiles.Step
		applied := map[string]bool{}
		for _, s := range steps {
			applied[s.Path] = true
			if selected[s.Path] {
				pick = append(pick, s)
			}
		}
		for p := range selected {
			if !applied[p] {
				*ignored = append(*ignored, p)
			}
		}
		sort.Strings(*ignored)
		if len(pick) == 0 {
			add(fmt.Sprintf("no applied path of %s is named (applied: %d of %d)", t.ID, len(steps), len(t.Files)), fmt.Sprintf("git nudge show %s lists its applied paths (undo.after).", t.ID))
			return done()
		}
		steps = pick
	}
	// Apply never writes a protected path, so a record naming one was
	// edited by hand (or the path was protected since): undo does not
	// write it either.
	opts, err := snapshot.LoadOptions(ctx, w.Repo)
	if err != nil {
		return nil, nil, "", err
	}
	protection := opts.Protection()
	for _, s := range steps {
		if protection.Protected(s.Path) {
			add(fmt.Sprintf("the undo record of %s names %s, a protected path (%s) undo never writes; it needs manual handling", t.ID, nudge.QuotePath(s.Path), snapshot.ProtectedSummary),
				fmt.Sprintf("git nudge show %s lists undo.before and undo.after; put the files back by hand.", t.ID))
		}
	}
	if len(rf.Reasons) > 0 {
		return done()
	}
	onBranch := true
	if r := branchReason(t.ID, "applied", t.Undo.Branch, t.Undo.Head, head); r != "" {
		add(r, switchNext(t.Undo.Branch, t.Undo.Head))
		onBranch = false
	}
	var blobs []string
	var writers []patchfiles.Step
	for _, s := range steps {
		if nudge.Present(s.To) {
			blobs = append(blobs, *s.To.Blob)
			writers = append(writers, s)
		}
		if nudge.Present(s.To) && s.To.RawBlob != nil {
			blobs = append(blobs, *s.To.RawBlob)
			writers = append(writers, s)
		}
	}
	// Only whether each is a blob is asked: loose and undeltified packed
	// objects are looked up in this process (ObjectTypes).
	types, err := w.Repo.ObjectTypes(ctx, blobs)
	if err != nil {
		return nil, nil, "", err
	}
	for i, id := range blobs {
		if types[id] != "blob" {
			add(fmt.Sprintf("the previous content of %s is missing from the repository's objects", nudge.QuotePath(writers[i].Path)),
				fmt.Sprintf("git nudge show %s lists undo.before; restore what you can by hand.", t.ID))
		}
	}
	if onBranch {
		changed, _, err := ops.Check(ctx, steps, "since "+t.ID+" was applied")
		if err != nil {
			return nil, nil, "", err
		}
		for _, r := range changed {
			add(r, undoChangedNext(t.ID))
		}
	}
	return steps, rf.Reasons, rf.Next(), nil
}

// savedIn reports whether t is part of a saved version, and the commit
// when known: from its record (saved_in, state saved) or from saves.json
// (an entry saved, or an interrupted one still saving whose commit is on
// its branch). An interrupted save whose branch never moved saved nothing:
// its commit is not in any history, so undo must not send the user to
// revert it (the next save rolls the entry back).
func savedIn(ctx context.Context, w *nudge.Workspace, t *nudge.Task) (commit string, saved bool, err error) {
	if t.SavedIn != nil && *t.SavedIn != "" {
		return *t.SavedIn, true, nil
	}
	saves, err := w.LoadSaves()
	if err != nil {
		return "", false, err
	}
	for _, s := range saves {
		if !nudge.Contains(s.Tasks, t.ID) {
			continue
		}
		switch s.State {
		case nudge.SaveSaved:
			return s.Commit, true, nil
		case nudge.SaveSaving:
			landed, err := saveLanded(ctx, w, s)
			if err != nil {
				return "", false, err
			}
			if landed {
				return s.Commit, true, nil
			}
		}
	}
	return "", t.State == nudge.StateSaved, nil
}

// saveLanded reports whether the commit of save entry e is on its branch
// (the branch points at it or at a descendant).
func saveLanded(ctx context.Context, w *nudge.Workspace, e nudge.SaveEntry) (bool, error) {
	at, ok, err := w.Repo.ReadRef(ctx, e.Branch)
	if err != nil || !ok || e.Commit == "" {
		return false, err
	}
	if at == e.Commit {
		return true, nil
	}
	return w.Repo.IsAncestor(ctx, e.Commit, at)
}
