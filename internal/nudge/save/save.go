package save

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/merge"
	"github.com/nudgethis/git-nudge/internal/nudge/patchfiles"
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
// (plan.go), authored by the user, hooks off. The user's index keeps
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
	s, err := prepareSave(ctx, w, opt, rep)
	if err != nil || s == nil {
		return rep, err
	}
	if err := s.build(ctx, opt); err != nil {
		return rep, err
	}
	if err := s.commit(ctx, saves); err != nil {
		return rep, err
	}
	rep.ID, rep.Commit, rep.Parent, rep.Branch, rep.Tasks, rep.Paths = s.entry.ID, s.entry.Commit, s.head.Commit, s.refName, s.entry.Tasks, s.paths
	rep.Kept, rep.WholeFiles = s.plan.Kept, s.plan.Whole
	return rep, nil
}

// saving is a save under way: what it commits, worked out step by step.
type saving struct {
	w       *nudge.Workspace
	head    git.Head
	where   string // the branch's name for messages ("the detached HEAD")
	refName string // the ref the commit moves
	tasks   []*nudge.Task
	paths   []string                   // the saved paths, sorted
	want    map[string]nudge.PathState // what each path's file holds
	plan    *savePlan
	tree    string
	step    *savedIndex
	msg     string
	entry   nudge.SaveEntry
}

// prepareSave picks the tasks and paths to save and checks that each can
// be saved: nil (and no error) when there is nothing left to do, a
// RefusedError when something stands in the way.
func prepareSave(ctx context.Context, w *nudge.Workspace, opt Options, rep *Report) (*saving, error) {
	r := w.Repo
	head, err := r.Head(ctx)
	if err != nil {
		return nil, err
	}
	refuse := &nudge.RefusedError{What: "cannot save"}
	if op := r.OperationInProgress(); op != "" {
		// The same check git autodev makes before a checkpoint: a commit
		// now would leave git's own state of the operation behind it.
		refuse.Reasons = append(refuse.Reasons, fmt.Sprintf("a %s is in progress, and a saved version made now would be an ordinary commit in the middle of it", op))
		refuse.Next = fmt.Sprintf("Nothing was committed. Finish the %s (or abort it with git %s --abort), then run git nudge save again.", op, op)
		return nil, refuse
	}
	// On a detached HEAD (where apply is allowed too) the saved version
	// moves HEAD itself.
	s := &saving{w: w, head: head, where: head.ShortBranch(), refName: head.Branch}
	if head.Detached() {
		s.where, s.refName = "the detached HEAD", "HEAD"
	}
	if s.tasks, err = saveCandidates(w, head, opt.IDs, refuse); err != nil {
		return nil, err
	}
	if len(refuse.Reasons) > 0 {
		return nil, refuse
	}
	if len(s.tasks) == 0 && len(rep.Settled) > 0 {
		return nil, nil // an interrupted save was all there was to finish
	}
	if len(s.tasks) == 0 {
		refuse.Reasons = append(refuse.Reasons, "no applied, unsaved task on "+s.where)
		refuse.Next = "Apply a task first (git nudge apply ID); git nudge list shows their states."
		return nil, refuse
	}
	// From here on the steps only read, and the slow ones (git's merges,
	// the look at the work tree, git's answer about the user's identity)
	// run side by side; their answers are taken in the order the steps
	// are listed, so a save refuses or fails as if they ran one after
	// the other. Whatever still runs when an earlier answer ends the save
	// is stopped and waited for.
	ctx, stop := context.WithCancel(ctx)
	var side sync.WaitGroup
	defer func() {
		stop()
		side.Wait()
	}()
	identity := goAnswer(&side, func() (bool, error) { return r.UserIdentityKnown(ctx) })
	if err := s.collectPaths(ctx, refuse); err != nil {
		return nil, err
	}
	// The plan needs only what collectPaths found; it is worked out
	// unless a reason to refuse is known already.
	var planned func() (planAnswer, error)
	if len(refuse.Reasons) == 0 {
		planned = goAnswer(&side, func() (planAnswer, error) {
			pr := &nudge.RefusedError{}
			p, err := planSave(ctx, w, head, s.tasks, s.paths, s.want, opt.WholeFiles, pr)
			return planAnswer{p, pr}, err
		})
	}
	if err := s.checkWorkTree(ctx, refuse); err != nil {
		return nil, err
	}
	if len(refuse.Reasons) > 0 {
		if refuse.Next == "" {
			refuse.Next = "Nothing was committed. Save the other tasks by naming them (git nudge save ID...); a task whose files you have made your own can be forgotten with git nudge drop --force ID, which leaves the files as they are."
		}
		return nil, refuse
	}
	pa, err := planned()
	if err != nil {
		return nil, err
	}
	s.plan = pa.plan
	if len(pa.refuse.Reasons) > 0 {
		refuse.Reasons, refuse.Next = pa.refuse.Reasons, pa.refuse.Next
		return nil, refuse
	}
	known, err := identity()
	if err != nil {
		return nil, err
	}
	if !known {
		return nil, &nudge.RefusedError{What: "cannot save",
			Reasons: []string{"git does not know who you are, and a saved version is your commit"},
			Next:    "Set your identity, then run git nudge save again:\n  git config --global user.name \"Your Name\"\n  git config --global user.email \"you@example.com\""}
	}
	return s, nil
}

// planAnswer is planSave's answer: the plan, and the reasons it found to
// refuse.
type planAnswer struct {
	plan   *savePlan
	refuse *nudge.RefusedError
}

// goAnswer runs f beside the caller (counted in wg) and returns the
// function that waits for its answer.
func goAnswer[T any](wg *sync.WaitGroup, f func() (T, error)) func() (T, error) {
	var v T
	var err error
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		v, err = f()
	}()
	return func() (T, error) {
		<-done
		return v, err
	}
}

// collectPaths sorts the tasks in the order they were applied and sets
// what each saved path must hold now: the newest applied version of it.
// A task that cannot be saved adds its reasons to refuse.
func (s *saving) collectPaths(ctx context.Context, refuse *nudge.RefusedError) error {
	r := s.w.Repo
	sort.Slice(s.tasks, func(i, j int) bool { return appliedTime(s.tasks[i]).Before(appliedTime(s.tasks[j])) })
	s.want = map[string]nudge.PathState{}
	opts, err := snapshot.LoadOptions(ctx, r)
	if err != nil {
		return err
	}
	protection := opts.Protection()
	for _, t := range s.tasks {
		// Conflict markers an apply --conflicts wrote must be resolved;
		// a resolved file is saved as the task's version.
		resolved, reasons, err := merge.ResolvedConflicts(ctx, s.w, t)
		if err != nil {
			return err
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
		// A task applied on HEAD's commit itself needs no look at the
		// history (a commit is its own ancestor).
		if t.Undo.Head != nil && !s.head.Unborn() && *t.Undo.Head != s.head.Commit {
			ok, err := r.IsAncestor(ctx, *t.Undo.Head, s.head.Commit)
			if err != nil {
				return err
			}
			if !ok {
				refuse.Reasons = append(refuse.Reasons, fmt.Sprintf("%s was applied on commit %s, which is no longer in %s's history (the branch was reset or rewritten)", t.ID, nudge.Short(*t.Undo.Head), s.where))
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
			s.want[a.Path] = a
		}
	}
	s.paths = make([]string, 0, len(s.want))
	for p := range s.want {
		s.paths = append(s.paths, p)
	}
	sort.Strings(s.paths)
	return nil
}

// checkWorkTree adds a reason to refuse for each saved path whose file no
// longer holds what the task left in it.
func (s *saving) checkWorkTree(ctx context.Context, refuse *nudge.RefusedError) error {
	ops, err := patchfiles.New(ctx, s.w)
	if err != nil {
		return err
	}
	defer ops.Close()
	wantList := make([]nudge.PathState, len(s.paths))
	for i, p := range s.paths {
		wantList[i] = s.want[p]
	}
	now, err := ops.Look(ctx, wantList)
	if err != nil {
		return err
	}
	for i, p := range s.paths {
		if v := ops.Judge(now[i], wantList[i]); v != patchfiles.AsExpected {
			refuse.Reasons = append(refuse.Reasons, patchfiles.Describe(v, p, now[i], "since it was applied"))
		}
	}
	return nil
}

// build writes the merged files, the commit's tree and the commit, and
// works out the index entries of the saved paths; nothing the user sees
// changes.
func (s *saving) build(ctx context.Context, opt Options) error {
	r := s.w.Repo
	if err := s.plan.Write(ctx, r); err != nil {
		return err
	}
	// Build the tree: HEAD's tree plus exactly the saved paths, edited in
	// place (only the folders on those paths are read and written), so
	// that a save costs what its paths cost, not what the repository does.
	base := ""
	if !s.head.Unborn() {
		base = s.head.Commit + "^{tree}"
	}
	edits := make([]git.TreeEdit, 0, len(s.paths))
	for i, p := range s.paths {
		c := s.plan.Commit[i]
		e := git.TreeEdit{Path: p, Mode: c.Mode, Object: c.Blob}
		if e.Object == "" {
			e.Mode = "" // no blob: the path is removed (as update-index did)
		}
		edits = append(edits, e)
	}
	tree, headTree, folders, err := r.EditTreeFolders(ctx, base, edits)
	if err != nil {
		return err
	}
	if !s.head.Unborn() && headTree == tree {
		return &nudge.RefusedError{What: "cannot save",
			Reasons: []string{"HEAD already holds these tasks' changes (were they committed by hand?), so a save would be an empty commit"},
			Next:    "Nothing was committed. git nudge drop --force ID forgets such a task and leaves the files as they are."}
	}
	s.tree = tree
	// The index entries of the saved paths are the plan's: the edits
	// themselves where nothing of the path was staged. When they are
	// all the edits, what the edits did to HEAD's folders is what they
	// do to the index's when it holds HEAD's tree (nothing else staged).
	// The new index is worked out while the commit and the branch are
	// written.
	s.step = &savedIndex{entries: make([]git.IndexEntry, len(edits)), folders: &git.KnownFolders{Base: headTree, Folders: folders}}
	for i, e := range edits {
		s.step.entries[i] = git.IndexEntry{Path: e.Path, Mode: e.Mode, Blob: e.Object}
		if ix := s.plan.Index[i]; ix != s.plan.Commit[i] {
			s.step.entries[i].Mode, s.step.entries[i].Blob = ix.Mode, ix.Blob
			s.step.folders = nil
		}
	}
	r.PrepareIndexEntries(ctx, s.step.entries, s.step.folders)
	s.msg = opt.Message
	if s.msg == "" {
		s.msg = defaultSaveMessage(s.tasks)
	}
	var parents []string
	if !s.head.Unborn() {
		parents = []string{s.head.Commit}
	}
	commit, err := r.CommitTree(ctx, git.CommitRequest{Tree: tree, Parents: parents, Message: s.msg + "\n"})
	if err != nil {
		return err
	}
	ids := make([]string, len(s.tasks))
	for i, t := range s.tasks {
		ids[i] = t.ID
	}
	s.entry = nudge.SaveEntry{Commit: commit, Parent: s.head.Commit, Branch: s.refName,
		Tasks: ids, Paths: s.paths, State: nudge.SaveSaving, Time: s.w.Now().UTC(), Index: s.plan.Rebased(s.paths)}
	return nil
}

// commit journals the save, moves the branch to the commit, sets the
// index entries and marks the tasks saved: journal first, then the
// branch, then the index, then the journal again (saves: as settled,
// under the lock held since).
func (s *saving) commit(ctx context.Context, saves []nudge.SaveEntry) error {
	r := s.w.Repo
	s.entry.ID = nextSaveID(saves)
	saves = append(saves, s.entry)
	if err := s.w.WriteSaves(saves); err != nil {
		return err
	}
	nudge.FaultPoint("save-after-journal")
	old := s.head.Commit
	if old == "" {
		old = r.ZeroID()
	}
	reason := "nudge save: " + nudge.FirstLine(s.msg)
	var moveErr error
	if s.head.Detached() {
		moveErr = r.UpdateRefs(ctx, reason, git.RefUpdate{Name: "HEAD", New: s.entry.Commit, Old: old, NoDeref: true})
	} else {
		moveErr = r.SetRef(ctx, git.SetRefRequest{Name: s.head.Branch, New: s.entry.Commit, Old: old, Reason: reason})
	}
	if err := moveErr; err != nil {
		// The branch did not move: the entry is rolled back.
		saves[len(saves)-1].State = nudge.SaveRolledBack
		_ = s.w.WriteSaves(saves)
		if errors.Is(err, git.ErrRefConflict) {
			return fmt.Errorf("%s moved while saving; nothing was committed to it, run git nudge save again", s.where)
		}
		return err
	}
	nudge.FaultPoint("save-after-ref")
	if err := finishSave(ctx, s.w, &saves[len(saves)-1], true, s.step); err != nil {
		return err
	}
	return s.w.WriteSaves(saves)
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
			if entries, err = savedIndexEntries(ctx, w, e); err != nil {
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
