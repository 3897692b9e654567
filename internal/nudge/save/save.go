package save

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/pathenc"
	"github.com/nudgethis/git-nudge/internal/snapshot"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// Options says what to save.
type Options struct {
	Message string
	IDs     []string // empty: every applied, unsaved task of the current branch
	// WholeFiles commits a file whose task's change cannot be separated
	// from the user's own edits as it is in the work tree (else such a
	// file refuses the save).
	WholeFiles bool
}

// Report is what a save did (and what it found left over by an earlier,
// interrupted save).
type Report struct {
	ID      string   `json:"id"`
	Commit  string   `json:"commit"`
	Parent  string   `json:"parent"`
	Branch  string   `json:"branch"`
	Tasks   []string `json:"tasks"`
	Paths   []string `json:"paths"`
	Settled []string `json:"settled"` // messages about interrupted saves found and settled
	// Kept: saved paths with edits of the user's own that stay out of
	// the commit (in the work tree, and staged where they were staged).
	Kept []string `json:"kept_edits,omitempty"`
	// WholeFiles: paths committed as they are in the work tree, the
	// user's own edits included (--whole-files).
	WholeFiles []string `json:"whole_files,omitempty"`
}

// Run commits the applied work of tasks on the current branch:
// HEAD's tree with exactly the tasks' changes merged into their paths
// (save_merge.go), authored by the user, hooks off. The user's index keeps
// every entry; those of the saved paths get the same changes (a path with
// nothing staged gets the commit's version).
func Run(ctx context.Context, w *nudge.Workspace, opt Options) (*Report, error) {
	lock, err := w.Lock(ctx, "git-nudge save")
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	rep := &Report{}
	settled, saves, err := settleSaves(ctx, w)
	if err != nil {
		return nil, err
	}
	rep.Settled = settled

	r := w.Repo
	head, err := r.Head(ctx)
	if err != nil {
		return rep, err
	}
	refuse := &nudge.RefusedError{What: "cannot save"}
	if op := r.OperationInProgress(); op != "" {
		// The same check git autodev makes before a checkpoint: a commit
		// now would leave git's own state of the operation behind it.
		refuse.Reasons = append(refuse.Reasons, fmt.Sprintf("a %s is in progress, and a saved version made now would be an ordinary commit in the middle of it", op))
		refuse.Next = fmt.Sprintf("Nothing was committed. Finish the %s (or abort it with git %s --abort), then run git nudge save again.", op, op)
		return rep, refuse
	}
	// On a detached HEAD (where apply is allowed too) the saved version
	// moves HEAD itself.
	where := head.ShortBranch()
	refName := head.Branch
	if head.Detached() {
		where, refName = "the detached HEAD", "HEAD"
	}
	tasks, err := saveCandidates(w, head, opt.IDs, refuse)
	if err != nil {
		return rep, err
	}
	if len(refuse.Reasons) > 0 {
		return rep, refuse
	}
	if len(tasks) == 0 && len(rep.Settled) > 0 {
		return rep, nil // an interrupted save was all there was to finish
	}
	if len(tasks) == 0 {
		refuse.Reasons = append(refuse.Reasons, "no applied, unsaved task on "+where)
		refuse.Next = "Apply a task first (git nudge apply ID); git nudge list shows their states."
		return rep, refuse
	}

	// The newest applied version of each path is the one the work tree
	// must hold now.
	sort.Slice(tasks, func(i, j int) bool { return appliedTime(tasks[i]).Before(appliedTime(tasks[j])) })
	want := map[string]nudge.PathState{}
	opts, err := snapshot.LoadOptions(ctx, r)
	if err != nil {
		return rep, err
	}
	protection := opts.Protection()
	for _, t := range tasks {
		// Conflict markers an apply --conflicts wrote must be resolved;
		// a resolved file is saved as the task's version.
		resolved, reasons, err := w.ResolvedConflicts(ctx, t)
		if err != nil {
			return rep, err
		}
		if len(reasons) > 0 {
			refuse.Reasons = append(refuse.Reasons, reasons...)
			refuse.Next = "Nothing was committed. Resolve the conflict markers (<<<<<<< workspace, |||||||, =======, >>>>>>>) in those files and run git nudge save again; git nudge undo ID puts back what they held before the apply."
			continue
		}
		if len(resolved) > 0 {
			u := *t.Undo
			u.After = append([]nudge.PathState{}, u.After...)
			for i, a := range u.After {
				if r, ok := resolved[a.Path]; ok {
					u.After[i] = r
				}
			}
			t.Undo = &u
		}
		if t.Undo.Head != nil && !head.Unborn() {
			ok, err := r.IsAncestor(ctx, *t.Undo.Head, head.Commit)
			if err != nil {
				return rep, err
			}
			if !ok {
				refuse.Reasons = append(refuse.Reasons, fmt.Sprintf("%s was applied on commit %s, which is no longer in %s's history (the branch was reset or rewritten)", t.ID, nudge.Short(*t.Undo.Head), where))
			}
		}
		for _, a := range t.Undo.After {
			// Apply never records such a path; a record edited by hand
			// might, and save must not commit it (or read through it).
			if worktree.ValidPath(a.Path) != nil || protection.Protected(a.Path) {
				refuse.Reasons = append(refuse.Reasons, fmt.Sprintf("the undo record of %s names %s, a path save never commits (outside the work tree, in .git or protected)", t.ID, pathenc.CQuote(a.Path)))
				refuse.Next = fmt.Sprintf("Nothing was committed. git nudge show %s shows the record; repair it, or save the other tasks by naming them.", t.ID)
				continue
			}
			want[a.Path] = a
		}
	}
	paths := make([]string, 0, len(want))
	for p := range want {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	ops, err := w.NewFileOps(ctx)
	if err != nil {
		return rep, err
	}
	defer ops.Close()
	wantList := make([]nudge.PathState, len(paths))
	for i, p := range paths {
		wantList[i] = want[p]
	}
	now, err := ops.Look(ctx, wantList)
	if err != nil {
		return rep, err
	}
	for i, p := range paths {
		if v := ops.Judge(now[i], wantList[i]); v != nudge.AsExpected {
			refuse.Reasons = append(refuse.Reasons, nudge.Describe(v, p, now[i], "since it was applied"))
		}
	}
	if len(refuse.Reasons) > 0 {
		if refuse.Next == "" {
			refuse.Next = "Nothing was committed. Save the other tasks by naming them (git nudge save ID...); a task whose files you have made your own can be forgotten with git nudge drop --force ID, which leaves the files as they are."
		}
		return rep, refuse
	}
	plan, err := w.PlanSave(ctx, head, tasks, paths, want, opt.WholeFiles, refuse)
	if err != nil {
		return rep, err
	}
	if len(refuse.Reasons) > 0 {
		return rep, refuse
	}
	known, err := r.UserIdentityKnown(ctx)
	if err != nil {
		return rep, err
	}
	if !known {
		return rep, &nudge.RefusedError{What: "cannot save",
			Reasons: []string{"git does not know who you are, and a saved version is your commit"},
			Next:    "Set your identity, then run git nudge save again:\n  git config --global user.name \"Your Name\"\n  git config --global user.email \"you@example.com\""}
	}

	if err := plan.Write(ctx, r); err != nil {
		return rep, err
	}
	// Build the tree: HEAD's tree plus exactly the saved paths, edited in
	// place (only the folders on those paths are read and written), so
	// that a save costs what its paths cost, not what the repository does.
	base := ""
	if !head.Unborn() {
		base = head.Commit + "^{tree}"
	}
	edits := make([]git.TreeEdit, 0, len(paths))
	for i, p := range paths {
		c := plan.Commit[i]
		e := git.TreeEdit{Path: p, Mode: c.Mode, Object: c.Blob}
		if e.Object == "" {
			e.Mode = "" // no blob: the path is removed (as update-index did)
		}
		edits = append(edits, e)
	}
	tree, headTree, folders, err := r.EditTreeFolders(ctx, base, edits)
	if err != nil {
		return rep, err
	}
	if !head.Unborn() && headTree == tree {
		return rep, &nudge.RefusedError{What: "cannot save",
			Reasons: []string{"HEAD already holds these tasks' changes (were they committed by hand?), so a save would be an empty commit"},
			Next:    "Nothing was committed. git nudge drop --force ID forgets such a task and leaves the files as they are."}
	}
	// The index entries of the saved paths are the plan's: the edits
	// themselves where nothing of the path was staged. When they are
	// all the edits, what the edits did to HEAD's folders is what they
	// do to the index's when it holds HEAD's tree (nothing else staged).
	// The new index is worked out while the commit and the branch are
	// written.
	step := &savedIndex{entries: make([]git.IndexEntry, len(edits)), folders: &git.KnownFolders{Base: headTree, Folders: folders}}
	for i, e := range edits {
		step.entries[i] = git.IndexEntry{Path: e.Path, Mode: e.Mode, Blob: e.Object}
		if ix := plan.Index[i]; ix != plan.Commit[i] {
			step.entries[i].Mode, step.entries[i].Blob = ix.Mode, ix.Blob
			step.folders = nil
		}
	}
	r.PrepareIndexEntries(ctx, step.entries, step.folders)
	ids := make([]string, len(tasks))
	for i, t := range tasks {
		ids[i] = t.ID
	}
	msg := opt.Message
	if msg == "" {
		msg = defaultSaveMessage(tasks)
	}
	var parents []string
	if !head.Unborn() {
		parents = []string{head.Commit}
	}
	commit, err := r.CommitTree(ctx, git.CommitRequest{Tree: tree, Parents: parents, Message: msg + "\n"})
	if err != nil {
		return rep, err
	}

	// Journal first, then the branch, then the index, then the journal
	// again (saves: as settled, under the lock held since).
	entry := nudge.SaveEntry{ID: nextSaveID(saves), Commit: commit, Parent: head.Commit, Branch: refName,
		Tasks: ids, Paths: paths, State: nudge.SaveSaving, Time: w.Now().UTC(), Index: plan.Rebased(paths)}
	saves = append(saves, entry)
	if err := w.WriteSaves(saves); err != nil {
		return rep, err
	}
	nudge.FaultPoint("save-after-journal")
	old := head.Commit
	if old == "" {
		old = r.ZeroID()
	}
	var moveErr error
	if head.Detached() {
		moveErr = r.UpdateRefs(ctx, "nudge save: "+nudge.FirstLine(msg), git.RefUpdate{Name: "HEAD", New: commit, Old: old, NoDeref: true})
	} else {
		moveErr = r.SetRef(ctx, git.SetRefRequest{Name: head.Branch, New: commit, Old: old, Reason: "nudge save: " + nudge.FirstLine(msg)})
	}
	if err := moveErr; err != nil {
		// The branch did not move: the entry is rolled back.
		saves[len(saves)-1].State = nudge.SaveRolledBack
		_ = w.WriteSaves(saves)
		if errors.Is(err, git.ErrRefConflict) {
			return rep, fmt.Errorf("%s moved while saving; nothing was committed to it, run git nudge save again", where)
		}
		return rep, err
	}
	nudge.FaultPoint("save-after-ref")
	if err := finishSave(ctx, w, &saves[len(saves)-1], true, step); err != nil {
		return rep, err
	}
	if err := w.WriteSaves(saves); err != nil {
		return rep, err
	}
	rep.ID, rep.Commit, rep.Parent, rep.Branch, rep.Tasks, rep.Paths = entry.ID, commit, head.Commit, refName, ids, paths
	rep.Kept, rep.WholeFiles = plan.Kept, plan.Whole
	return rep, nil
}

// savedIndex is what the save that made a commit knows of its index step:
// the entries of the saved paths and what its edits did to HEAD's folders.
type savedIndex struct {
	entries []git.IndexEntry
	folders *git.KnownFolders
}

// finishSave does what follows the branch move: the user's index entries of
// the saved paths are set to the commit's (when indexStep), and the tasks
// become saved. The entry is marked saved; the caller writes the journal.
// known, when set, holds those entries (else they are read from the commit).
func finishSave(ctx context.Context, w *nudge.Workspace, e *nudge.SaveEntry, indexStep bool, known *savedIndex) error {
	r := w.Repo
	if indexStep {
		var folders *git.KnownFolders
		var entries []git.IndexEntry
		if known != nil {
			entries, folders = known.entries, known.folders
		} else {
			var err error
			if entries, err = w.SavedIndexEntries(ctx, e); err != nil {
				return err
			}
		}
		if err := r.SetIndexEntries(ctx, entries, folders); err != nil {
			return fmt.Errorf("the commit %s is on %s, but updating the index failed: %w", nudge.Short(e.Commit), strings.TrimPrefix(e.Branch, "refs/heads/"), err)
		}
	}
	nudge.FaultPoint("save-after-index")
	for _, id := range e.Tasks {
		t, err := w.Load(id)
		if err != nil {
			return err
		}
		if t.State == nudge.StateApplied {
			t.State = nudge.StateSaved
			c := e.Commit
			t.SavedIn = &c
			if err := w.Save(t); err != nil {
				return err
			}
		}
	}
	e.State = nudge.SaveSaved
	return nil
}

// settleSaves finishes or rolls back entries left in "saving" by a process
// that died, by looking at where the branch points; it reports what it did
// and returns the journal as it left it.
func settleSaves(ctx context.Context, w *nudge.Workspace) ([]string, []nudge.SaveEntry, error) {
	saves, err := w.LoadSaves()
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	changed := false
	for i := range saves {
		e := &saves[i]
		if e.State != nudge.SaveSaving {
			continue
		}
		stand, back, err := classifySave(ctx, w, e)
		if err != nil {
			return nil, nil, err
		}
		br := strings.TrimPrefix(e.Branch, "refs/heads/")
		switch stand {
		case saveLanded:
			if err := finishSave(ctx, w, e, true, nil); err != nil {
				return nil, nil, err
			}
			notes = append(notes, fmt.Sprintf("save %s was interrupted after %s moved to %s; it has been completed (index entries of its paths updated, tasks marked saved)", e.ID, br, nudge.Short(e.Commit)))
		case saveUnmoved:
			e.State = nudge.SaveRolledBack
			notes = append(notes, fmt.Sprintf("save %s was interrupted before %s moved; it was rolled back and its tasks are still applied", e.ID, br))
		case saveUndone:
			// A later commit undid the save (a git commit made with the
			// index it left): its tasks are not saved.
			e.State = Reverted
			notes = append(notes, revertedNote(e, br, back, "its tasks were not marked saved and stay applied"))
		case saveFollowed:
			// The save landed and more commits followed: finish the tasks
			// but leave the index alone, it has moved on.
			if err := finishSave(ctx, w, e, false, nil); err != nil {
				return nil, nil, err
			}
			notes = append(notes, fmt.Sprintf("save %s was interrupted after %s moved to %s, and later commits followed; its tasks are now marked saved, the index was left as it is", e.ID, br, nudge.Short(e.Commit)))
		case saveLost:
			notes = append(notes, fmt.Sprintf("save %s was interrupted and %s now points at neither its parent %s nor its commit %s; it was left as %q in %s for you to inspect (git log %s)", e.ID, br, nudge.Short(e.Parent), nudge.Short(e.Commit), nudge.SaveSaving, w.SavesPath(), br))
			continue
		}
		changed = true
	}
	if changed {
		if err := w.WriteSaves(saves); err != nil {
			return nil, nil, err
		}
	}
	return notes, saves, nil
}

// saveCandidates picks the tasks to save, adding refusal reasons for named
// tasks that cannot be saved.
func saveCandidates(w *nudge.Workspace, head git.Head, ids []string, refuse *nudge.RefusedError) ([]*nudge.Task, error) {
	if len(ids) == 0 {
		// Only applied tasks can be saved: the others are read no
		// further than their summary.
		all, err := w.Summaries()
		if err != nil {
			return nil, err
		}
		var out []*nudge.Task
		for _, s := range all {
			if s.State != nudge.StateApplied {
				continue
			}
			t, err := w.Load(s.ID)
			if err != nil {
				return nil, err
			}
			if t.State == nudge.StateApplied && t.SavedIn == nil && t.Undo != nil && nudge.Deref(t.Undo.Branch) == head.Branch {
				out = append(out, t)
			}
		}
		return out, nil
	}
	var out []*nudge.Task
	for _, id := range nudge.Distinct(ids) {
		t, err := w.Load(id)
		if err != nil {
			var u *nudge.UnknownTaskError
			if errors.As(err, &u) {
				refuse.Reasons = append(refuse.Reasons, u.Error())
				continue
			}
			return nil, err
		}
		switch {
		case t.State == nudge.StateSaved || t.SavedIn != nil:
			refuse.Reasons = append(refuse.Reasons, fmt.Sprintf("%s is already saved in %s", id, nudge.Short(nudge.Deref(t.SavedIn))))
		case t.State != nudge.StateApplied:
			refuse.Reasons = append(refuse.Reasons, fmt.Sprintf("%s is %s, not applied", id, nudge.StateLabel(t.State)))
		case t.Undo == nil:
			refuse.Reasons = append(refuse.Reasons, fmt.Sprintf("%s has no undo record, so which files it changed is not known; it needs manual handling", id))
		case nudge.Deref(t.Undo.Branch) != head.Branch:
			current := "the current branch " + head.ShortBranch()
			if head.Detached() {
				current = "the detached HEAD"
			}
			refuse.Reasons = append(refuse.Reasons, fmt.Sprintf("%s was applied on %s, not on %s", id, branchLabel(t.Undo.Branch), current))
		default:
			out = append(out, t)
		}
	}
	return out, nil
}

func appliedTime(t *nudge.Task) time.Time {
	if t.AppliedAt != nil {
		return *t.AppliedAt
	}
	return t.Created
}

func nextSaveID(saves []nudge.SaveEntry) string {
	max := 0
	for _, s := range saves {
		if n, err := strconv.Atoi(strings.TrimPrefix(s.ID, "s")); err == nil && n > max {
			max = n
		}
	}
	return "s" + strconv.Itoa(max+1)
}

func defaultSaveMessage(tasks []*nudge.Task) string {
	var ids, notes []string
	for _, t := range tasks {
		ids = append(ids, t.ID)
		switch {
		case t.Note != "":
			notes = append(notes, t.ID+": "+nudge.FirstLine(t.Note))
		case len(t.Command) > 0:
			notes = append(notes, t.ID+": "+pathenc.ShellJoin(t.Command))
		}
	}
	msg := "Save nudge task"
	if len(ids) > 1 {
		msg += "s"
	}
	msg += " " + strings.Join(ids, ", ")
	if len(notes) > 0 {
		msg += "\n\n" + strings.Join(notes, "\n")
	}
	return msg
}

func branchLabel(b *string) string {
	if b == nil {
		return "a detached HEAD"
	}
	return strings.TrimPrefix(*b, "refs/heads/")
}

// MarshalJSON writes the report, with paths_b64 as in saves.json.
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report
	v := struct {
		plain
		PathsB64 []string `json:"paths_b64,omitempty"`
	}{plain: plain(r)}
	v.Paths, v.PathsB64 = pathenc.EncodeList(r.Paths)
	return pathenc.Marshal(v)
}
