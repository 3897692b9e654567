package apply

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/patchfiles"
)

// FileOutcome is one path in the report of apply or undo.
type FileOutcome struct {
	Path   string `json:"path"`
	Status string `json:"status"` // what was done to the work tree: A, M or D
}

// Outcome is what apply and undo report (`apply --json`, `undo --json`).
type Outcome struct {
	ID    string        `json:"id"`
	State string        `json:"state"`
	Files []FileOutcome `json:"files"`
	// Applied and Total count the patch's paths that are applied after
	// the command, and all of them: given only while some, not all, are.
	Applied int `json:"applied,omitempty"`
	Total   int `json:"total,omitempty"`
	// Ignored are the named paths left alone: already applied (apply),
	// or not applied (undo).
	Ignored []string `json:"ignored,omitempty"`
	// Merged are the paths merged three-way with the user's edits
	// (apply --merge); Conflicts those written with conflict markers.
	Merged    []string `json:"merged,omitempty"`
	Conflicts []string `json:"conflicts,omitempty"`
}

func outcome(t *nudge.Task, steps []patchfiles.Step) *Outcome {
	o := &Outcome{ID: t.ID, State: t.State, Files: []FileOutcome{}}
	for _, s := range steps {
		o.Files = append(o.Files, FileOutcome{Path: s.Path, Status: s.Status()})
		if s.Merged && !s.Conflicted {
			o.Merged = append(o.Merged, s.Path)
		}
		if s.Conflicted {
			o.Conflicts = append(o.Conflicts, s.Path)
		}
	}
	if n, total := t.AppliedCount(); n > 0 && n < total {
		o.Applied, o.Total = n, total
	}
	return o
}

// Options are the choices of an apply.
type Options struct {
	// AcceptConfigChange applies a task although the repository's shared
	// git settings were changed (and put back) while it could change them.
	AcceptConfigChange bool
	// Unvalidated applies a task whose validation failed.
	Unvalidated bool
	// Dir is the caller's current directory: paths in a refusal are
	// given relative to it ("" gives them from the top of the work tree).
	Dir string
	// Paths limits the apply to the patch's paths these pathspecs match
	// (as git diff reads them, relative to Dir); none: every path not
	// applied yet.
	Paths []string
	// Merge merges a path edited since the snapshot three-way (base: the
	// snapshot's version, ours: the work tree's, theirs: the result's)
	// instead of refusing it; Conflicts writes the conflicts with diff3
	// markers instead of refusing them.
	Merge, Conflicts bool
}

// Run applies task id's patch (snapshot -> result) onto the work tree.
// It is refused, with every reason and nothing changed, unless the task
// is ready or undone, HEAD is where the snapshot was taken and every path
// of the patch is an ordinary file still exactly as in the snapshot. Then,
// holding the workspace lock, the record goes to applying with its undo
// record before any file is touched; files are re-checked, written (temp
// file and rename), removed, verified; the record goes to applied. Nothing
// is staged or committed, and the cost follows the patch, not the tree.
//
// A task whose shared git settings changed, or whose nudge.validate
// commands failed, is refused (among the other reasons) unless o says to
// go on.
func Run(ctx context.Context, w *nudge.Workspace, id string, o Options) (*Outcome, error) {
	if o.Conflicts {
		o.Merge = true
	}
	specs, err := w.Pathspecs(o.Dir, o.Paths)
	if err != nil {
		return nil, err
	}
	var ignored []string
	faults := "apply"
	if len(o.Paths) > 0 {
		faults = "apply-paths"
	}
	out, err := move(ctx, w, id, direction{
		verb: "apply", faults: faults, done: "applied", since: "since the snapshot",
		plan: func(ctx context.Context, ops *patchfiles.FileOps, t *nudge.Task, head git.Head) ([]patchfiles.Step, []string, string, error) {
			w.GuardCheck(ctx, t, nudge.CheckApply, w.Warn)
			steps, reasons, next, err := planApply(ctx, w, ops, t, head, specs, &ignored, o)
			if err != nil {
				return steps, reasons, next, err
			}
			if r, n := nudge.GuardReason(t); r != "" && !o.AcceptConfigChange {
				reasons = append(reasons, r)
				next = strings.TrimPrefix(next+"\n"+n, "\n")
			}
			if o.Unvalidated || !t.ValidationFailed() {
				return steps, reasons, next, nil
			}
			var rf nudge.ReasonList
			rf.Add(nudge.ValidationReason(t, w.ShownPath(filepath.Join(w.LogDir(t.ID), "validate.log"), o.Dir)))
			for _, r := range reasons {
				rf.Add(r, "")
			}
			if next != "" {
				rf.Nexts = append(rf.Nexts, next)
			}
			return nil, rf.Reasons, rf.Next(), nil
		},
		begin: func(t *nudge.Task, steps []patchfiles.Step, head git.Head) {
			if len(t.ConfigChanges) > 0 {
				t.ConfigChangesAccepted = append(t.ConfigChangesAccepted, t.ConfigChanges...)
				t.ConfigChanges = nil
			}
			undo := &nudge.Undo{Branch: nudge.OptStr(head.Branch), Head: nudge.OptStr(head.Commit)}
			var conflicts []string
			if t.State == nudge.StateApplied && t.Undo != nil {
				// More paths of a partly applied task: the record keeps
				// those applied before (fresh slices: the record as it was
				// is kept to be put back if nothing gets written).
				undo.Branch, undo.Head = t.Undo.Branch, t.Undo.Head
				undo.Before = append(undo.Before, t.Undo.Before...)
				undo.After = append(undo.After, t.Undo.After...)
				conflicts = append(conflicts, t.Conflicts...)
			}
			for _, s := range steps {
				undo.Before = append(undo.Before, s.From)
				undo.After = append(undo.After, s.To)
				if s.Conflicted {
					conflicts = append(conflicts, s.Path)
				}
			}
			t.State, t.Undo, t.Conflicts = nudge.StateApplying, undo, conflicts
		},
		finish: func(t *nudge.Task, now time.Time) {
			t.State, t.AppliedAt, t.UndoneAt = nudge.StateApplied, &now, nil
		},
		changedNext: editedNext,
	})
	if out != nil {
		out.Ignored = ignored
	}
	return out, err
}

// direction is what tells apply and undo apart for move.
type direction struct {
	verb   string // "apply", "undo"
	faults string // the prefix of its fault points: verb, or verb-paths
	done   string // what the files were when it worked: "applied", "restored"
	since  string // for messages about changed files: "since the snapshot"
	// plan checks the task and the work tree, returning the steps or the
	// reasons to refuse.
	plan func(ctx context.Context, ops *patchfiles.FileOps, t *nudge.Task, head git.Head) ([]patchfiles.Step, []string, string, error)
	// begin and finish set the record's in-flight and final states.
	begin       func(t *nudge.Task, steps []patchfiles.Step, head git.Head)
	finish      func(t *nudge.Task, now time.Time)
	changedNext func(id string) string
}

// move is apply and undo: under the workspace lock, plan (refusing with
// every reason and nothing changed), stage the new contents, write the
// in-flight record before any file is touched, move the files (re-checked,
// writes first, removals last, verified), then write the final record.
// Its fault points are <verb>-after-journal and <verb>-before-final (the
// file points are in transition); docs/RELIABILITY.md lists them all.
func move(ctx context.Context, w *nudge.Workspace, id string, d direction) (*Outcome, error) {
	lock, err := w.Lock(ctx, "git nudge "+d.verb+" "+id)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	t, err := w.Load(id)
	if err != nil {
		return nil, err
	}
	ops, err := patchfiles.New(ctx, w)
	if err != nil {
		return nil, err
	}
	defer ops.Close()
	head, err := w.Repo.Head(ctx)
	if err != nil {
		return nil, err
	}
	steps, reasons, next, err := d.plan(ctx, ops, t, head)
	if err != nil {
		return nil, err
	}
	if len(reasons) > 0 {
		return nil, &nudge.RefusedError{What: "cannot " + d.verb + " " + id + "; nothing was changed", Reasons: reasons, Next: next}
	}
	// New contents are streamed from git into temp files in a stage
	// folder of .nudgethis once the record is written, and renamed from
	// there into place; only a patch that writes a .gitattributes (whose
	// rules govern its siblings before it is in place) has them prepared
	// by git's checkout first.
	stageDir, err := w.NewStage()
	if err != nil {
		return nil, err
	}
	defer func() { _ = w.RemoveStage(filepath.Base(stageDir)) }()
	staged := ""
	if patchfiles.WritesAttributes(steps) {
		staged = filepath.Join(stageDir, "files")
		if err := ops.Stage(ctx, staged, steps); err != nil {
			return nil, err
		}
		// Undo of bytes checkout would not write: staged as they were.
		if err := ops.StageRaw(ctx, staged, steps); err != nil {
			return nil, err
		}
	}

	prev := *t
	d.begin(t, steps, head)
	t.Error = nil
	// The in-flight record is written (and fsynced) while the new
	// contents are staged and fsynced; the work tree is first touched
	// only once the record is durable (recorded).
	saved := make(chan error, 1)
	go func() { saved <- w.Save(t) }()
	var saveErr error
	waited := false
	recorded := func() error {
		if !waited {
			waited = true
			if saveErr = <-saved; saveErr != nil {
				return saveErr
			}
			nudge.FaultPoint(d.faults + "-after-journal")
		}
		return saveErr
	}
	touched, err := ops.Transition(ctx, steps, stageDir, staged, d.since, d.faults, recorded)
	if !waited {
		// Stopped before asking: the record's write is awaited before
		// the record is set back.
		waited = true
		saveErr = <-saved
	}
	if saveErr != nil {
		return nil, saveErr
	}
	if err != nil {
		return nil, stopped(w, t, &prev, d.verb, touched, err, d.changedNext(id))
	}
	nudge.FaultPoint(d.faults + "-before-final")
	d.finish(t, w.Now().UTC())
	if err := w.Save(t); err != nil {
		return nil, fmt.Errorf("the files of %s were %s and verified, but its record could not be updated (%w); the next git nudge command will mark it Recovery required", id, d.done, err)
	}
	return outcome(t, steps), nil
}

// editedNext is the advice after a refusal because files changed since the
// snapshot.
func editedNext(id string) string {
	return fmt.Sprintf("Your edits were kept. git nudge apply --merge %s merges the task's change into them; git nudge refresh %s makes a new task from the workspace as it is now, with the change carried over; or take a new snapshot from the current workspace and run the task again.", id, id)
}

// stopped settles the record after a transition failed. Before any file
// was touched the record goes back to what it was (and a re-check that
// found changed files is a refusal); afterwards the task is
// recovery_required and stays so until a person looks at it.
func stopped(w *nudge.Workspace, t, prev *nudge.Task, verb string, touched bool, err error, changedNext string) error {
	if !touched {
		if serr := w.Save(prev); serr != nil {
			return errors.Join(err, fmt.Errorf("restoring the record of %s: %w", t.ID, serr))
		}
		var ce *patchfiles.ChangedError
		if errors.As(err, &ce) {
			return &nudge.RefusedError{What: fmt.Sprintf("cannot %s %s; nothing was changed", verb, t.ID), Reasons: ce.Reasons, Next: changedNext}
		}
		return fmt.Errorf("%s %s stopped before changing any file: %w", verb, t.ID, err)
	}
	msg := fmt.Sprintf("%s stopped part-way: %v", verb, err)
	t.State, t.Error = nudge.StateRecoveryRequired, &msg
	if serr := w.Save(t); serr != nil {
		return errors.Join(fmt.Errorf("%s of %s stopped after changing files: %w", verb, t.ID, err),
			fmt.Errorf("recording it: %w; the next git nudge command will mark the task Recovery required", serr))
	}
	return fmt.Errorf("%s of %s stopped after changing files: %w\nThe task now needs recovery and nothing will be retried: git nudge recover %s shows each file", verb, t.ID, err, t.ID)
}

// normState turns one side of a FileChange into a PathState (nil mode and
// blob for "no file", whichever spelling the record used).
func normState(p string, mode, blob *string) nudge.PathState {
	if mode == nil || blob == nil || git.AbsentMode(*mode) || strings.Trim(*blob, "0") == "" {
		return nudge.PathState{Path: p}
	}
	return nudge.PathState{Path: p, Mode: mode, Blob: blob}
}

// branchReason says why HEAD is not where task material must be applied or
// undone: on branch, or (detached) at commit.
func branchReason(id, verb string, branch, commit *string, head git.Head) string {
	if branch != nil {
		if head.Branch == *branch {
			return ""
		}
		now := "HEAD is detached"
		if !head.Detached() {
			now = "the current branch is " + head.ShortBranch()
		}
		return fmt.Sprintf("%s was %s on branch %s, but %s", id, verb, strings.TrimPrefix(*branch, "refs/heads/"), now)
	}
	if head.Detached() && head.Commit == nudge.Deref(commit) {
		return ""
	}
	now := "HEAD is now at " + nudge.Short(head.Commit)
	if !head.Detached() {
		now = "the current branch is " + head.ShortBranch()
	}
	return fmt.Sprintf("%s was %s on a detached HEAD at %s, but %s", id, verb, nudge.Short(nudge.Deref(commit)), now)
}

func switchNext(branch, commit *string) string {
	if branch != nil {
		return fmt.Sprintf("Switch back first (git switch %s), then run the command again; the files of the patch are checked against the work tree only there, since another branch's files say nothing about them.", strings.TrimPrefix(*branch, "refs/heads/"))
	}
	return fmt.Sprintf("Check out that commit first (git switch --detach %s), then run the command again; the files of the patch are checked against the work tree only there.", nudge.Short(nudge.Deref(commit)))
}

// stateRefusal says why a task in state cannot be applied, and what to do.
func applyStateReason(t *nudge.Task) (reason, next string) {
	switch t.State {
	case nudge.StateReady, nudge.StateUndone:
		return "", ""
	case nudge.StateApplied:
		if n, total := t.AppliedCount(); t.Undo != nil && n > 0 && n < total {
			return "", "" // the rest of its paths can be applied
		}
		return t.ID + " is already applied", fmt.Sprintf("git nudge undo %s takes it back; git nudge save commits it.", t.ID)
	case nudge.StateSaved:
		return fmt.Sprintf("%s is already applied and saved in commit %s", t.ID, nudge.Short(nudge.Deref(t.SavedIn))), ""
	case nudge.StateRecoveryRequired:
		return t.ID + " needs recovery: an apply or undo of it was interrupted", fmt.Sprintf("git nudge recover %s shows where each file stands.", t.ID)
	case nudge.StateApplying, nudge.StateUndoing:
		return fmt.Sprintf("%s is being changed by another git nudge command (%s)", t.ID, t.State), "Wait for it to finish."
	case nudge.StateFailed:
		return fmt.Sprintf("%s failed, and only ready tasks are applied", t.ID),
			fmt.Sprintf("Review it with git nudge diff %s; git nudge capture %s records its worktree as a ready result.", t.ID, t.ID)
	}
	return fmt.Sprintf("%s is %s: it has no result to apply yet", t.ID, t.State),
		nudge.ResultAdvice(t.ID, t.State != nudge.StateSnapshotted && t.Worktree != nil)
}

// MarshalJSON writes the path as bytes survive JSON.
func (f FileOutcome) MarshalJSON() ([]byte, error) {
	type plain FileOutcome
	v := plain(f)
	return nudge.MarshalPath(&v, &v.Path)
}

// UnmarshalJSON reads the path back, from path_b64 when present.
func (f *FileOutcome) UnmarshalJSON(data []byte) error {
	type plain FileOutcome
	return nudge.UnmarshalPath(data, (*plain)(f), &f.Path)
}
