package nudge

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/snapshot"
)

// Capture records a task's result: its worktree as it is now (with the
// snapshot's rules), or with from the tree of that revision. The result is
// a commit on top of the snapshot pinned by refs/nudgethis/results/<id>;
// the task becomes ready.
func (w *Workspace) Capture(ctx context.Context, id, from string) (*Task, error) {
	l, err := w.Lock(ctx, "git-nudge capture")
	if err != nil {
		return nil, err
	}
	defer l.Release()
	t, err := w.Load(id)
	if err != nil {
		return nil, err
	}
	refuse := func(reason, next string) error {
		return &RefusedError{What: "cannot capture " + id, Reasons: []string{reason}, Next: next}
	}
	if w.Busy(id) {
		return nil, refuse(w.BusyReason(t), "Wait for it to finish; git nudge run captures the result itself.")
	}
	switch t.State {
	case StateSnapshotted, StatePrepared, StateReady, StateFailed:
	case StatePending:
		return nil, refuse(PendingAdvice(id), "")
	default:
		return nil, refuse(fmt.Sprintf("it is %s, and a new result would no longer match what was used", StateLabel(t.State)),
			"Start a fresh task from the current workspace with git nudge start.")
	}
	if from == "" && !w.HasWorktree(t) && t.WorktreeReleased {
		return nil, refuse("its worktree was given back once its result was recorded (nothing in it was left uncaptured), so there is nothing new to capture",
			fmt.Sprintf("git nudge start %s brings a worktree back at the result; change it there, then git nudge capture %s.", id, id))
	}
	if from == "" && !w.HasWorktree(t) {
		return nil, refuse("it has no worktree to capture",
			fmt.Sprintf("Give it one with git nudge start %s, or name a commit with git nudge capture %s --from REV.", id, id))
	}
	kind := CheckOwn
	if !w.HasWorktree(t) {
		kind = CheckApply // nothing of this task could write: only look
	}
	w.GuardCheck(ctx, t, kind, w.Warn)
	if err := w.CaptureLocked(ctx, t, from); err != nil {
		return nil, err
	}
	t.State = StateReady
	t.Error = nil
	return t, w.Save(t)
}

// CaptureLocked sets t's result commit, ref, files and result_skipped (the
// record is not saved). The workspace lock is held.
func (w *Workspace) CaptureLocked(ctx context.Context, t *Task, from string) error {
	r := w.Repo
	var tree string
	var skipped []Skipped
	if from != "" {
		commit, ok, err := r.ResolveCommit(ctx, from)
		if err != nil {
			return err
		}
		if !ok {
			return &RefusedError{What: "cannot capture " + t.ID, Reasons: []string{fmt.Sprintf("%q names no commit", from)}, Next: "Name a commit, branch or tag of this repository."}
		}
		if tree, err = r.TreeOf(ctx, commit); err != nil {
			return err
		}
	} else {
		var err error
		if tree, skipped, err = w.CaptureWorktree(ctx, t); err != nil {
			return err
		}
	}
	result, err := r.CommitTree(ctx, git.CommitRequest{
		Tree: tree, Parents: []string{t.Base()}, Message: "nudge result " + t.ID,
		Author: Identity, Committer: Identity,
	})
	if err != nil {
		return err
	}
	ref := refs.Results + t.ID
	old, ok, err := r.ReadRef(ctx, ref)
	if err != nil {
		return err
	}
	if !ok {
		old = r.ZeroID()
	}
	if err := r.SetRef(ctx, git.SetRefRequest{Name: ref, New: result, Old: old}); err != nil {
		return err
	}
	files, err := ComputeFiles(ctx, r, t.Base(), result)
	if err != nil {
		return err
	}
	t.Result = &result
	t.Files = files
	t.ResultSkipped = skipped
	// A validation was of the previous result.
	t.Validation = nil
	return nil
}

// CaptureWorktree captures t's worktree with the snapshot's rules. When the
// task moved the worktree's HEAD (committed), protected paths are still
// held at the snapshot's version.
func (w *Workspace) CaptureWorktree(ctx context.Context, t *Task) (string, []Skipped, error) {
	if err := w.importSandboxObjects(ctx, t.ID); err != nil {
		return "", nil, err
	}
	wr, err := w.Repo.OpenWorktree(ctx, *t.Worktree)
	if err != nil {
		return "", nil, err
	}
	if err := w.safeTaskWorktree(ctx, t, wr); err != nil {
		return "", nil, err
	}
	private, err := w.privateGitDir(ctx, wr)
	if err != nil {
		return "", nil, err
	}
	defer func() { _ = w.RemoveStage(filepath.Base(private)) }()
	wr = w.Repo.WorktreeRepo(wr.WorkTree, private)
	// The rules recorded when the task was created: the task can rewrite
	// the shared git config, so its nudge.protect is not asked now.
	var res snapshot.Result
	var opts snapshot.Options
	if t.Rules != nil {
		opts = t.Rules.Options()
		res, err = snapshot.Capture(ctx, wr, opts)
	} else {
		res, opts, err = snapshot.CaptureConfigured(ctx, wr)
	}
	if err != nil {
		return "", nil, err
	}
	tree := res.Tree
	if tree == "" {
		if tree, err = w.Repo.TreeOf(ctx, res.Head.Commit); err != nil {
			return "", nil, err
		}
	}
	skipped := SkippedOf(res.Skipped)
	if res.Head.Commit == t.Snapshot {
		return tree, skipped, nil
	}
	changes, err := w.Repo.DiffTrees(ctx, t.Snapshot, tree)
	if err != nil {
		return "", nil, err
	}
	prot := opts.Protection()
	listed := map[string]bool{}
	for _, s := range skipped {
		listed[s.Path] = true
	}
	var back []git.TreeEdit
	for _, c := range changes {
		if prot.Protected(c.Path) {
			back = append(back, git.TreeEdit{Path: c.Path, Mode: c.OldMode, Object: c.OldBlob})
			if !listed[c.Path] {
				skipped = append(skipped, Skipped{Path: c.Path, Reason: snapshot.ReasonProtected})
			}
		}
	}
	if len(back) == 0 {
		return tree, skipped, nil
	}
	tree, _, err = w.Repo.EditTree(ctx, tree, back)
	return tree, skipped, err
}

// importSandboxObjects brings the objects a sandboxed command of task id
// wrote (commits, trees and blobs of git add or git commit in its
// worktree) into the repository's store, each verified by git as it is
// unpacked, then removes the private object directory. Nothing to import
// is not an error.
func (w *Workspace) importSandboxObjects(ctx context.Context, id string) error {
	dir := w.SandboxObjects(id)
	st, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a folder; its objects were not imported", dir)
	}
	// Alternates the command may have listed there are not followed.
	if err := os.RemoveAll(filepath.Join(dir, "info")); err != nil {
		return err
	}
	if _, err := w.Repo.ImportObjects(ctx, dir); err != nil {
		return fmt.Errorf("importing the objects the sandboxed command wrote (%s): %w", dir, err)
	}
	return os.RemoveAll(filepath.Dir(dir))
}
