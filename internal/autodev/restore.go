package autodev

import (
	"context"
	"fmt"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/pathenc"
)

// RestoreError is a restore that failed or was refused; its text is the
// line to print ("Restore failed: <reason>").
type RestoreError struct {
	Reason string
	Err    error
}

func (e *RestoreError) Error() string { return "Restore failed: " + e.Reason }
func (e *RestoreError) Unwrap() error { return e.Err }

// RestoreResult is what Restore did.
type RestoreResult struct {
	Target     Entry
	Parked     Parked // Branch is "" when the tree was clean
	PreRestore *Entry // nil on an unborn branch with a clean tree
	Removed    []string
	// Unchanged is true when HEAD was already at the checkpoint's commit
	// with a clean tree: nothing was done.
	Unchanged bool
	// Base is set when the target was the pre-restore entry of parked
	// work: the commit HEAD went back to, with that work uncommitted on
	// top of it.
	Base string
}

// Restore brings the project back to a checkpoint: park the
// uncommitted work on a branch, reset --hard, remove the untracked files
// that were parked and that the checkpoint lacks, journal a pre-restore
// entry, mark the run idle and note the restore in memory.md.
func (ws *Workspace) Restore(ctx context.Context, id string) (RestoreResult, error) {
	return ws.RestoreWith(ctx, id, RestoreOptions{})
}

// RestoreOptions change what Restore accepts.
type RestoreOptions struct {
	// AnyBranch restores a checkpoint recorded on another branch than the
	// current one (which is otherwise refused).
	AnyBranch bool
	// BeforeReset, when set, is told before the work tree changes (before
	// parking, which changes no file) what it changes: the work tree, captured as the tree workTree
	// (files that differ from commit head, untracked ones included), is
	// about to become commit target's tree. The operation log records
	// the restore from it instead of walking the work tree itself.
	BeforeReset func(ctx context.Context, head, workTree, target string)
}

// RestoreWith is Restore with options.
func (ws *Workspace) RestoreWith(ctx context.Context, id string, opts RestoreOptions) (RestoreResult, error) {
	var res RestoreResult
	on, err := ws.Enabled(ctx)
	if err != nil {
		return res, err
	}
	if !on {
		return res, &RestoreError{Reason: ErrCheckpointsOff.Error(), Err: ErrCheckpointsOff}
	}
	if err := ws.refuseWhileRunning(); err != nil {
		return res, err
	}
	lk, err := ws.lock(ctx, "restore "+id)
	if err != nil {
		return res, err
	}
	defer lk.Release()
	// Checked again under the lock: a run may have started meanwhile.
	if err := ws.refuseWhileRunning(); err != nil {
		return res, err
	}
	j, err := ws.LoadJournal()
	if err != nil {
		return res, err
	}
	st, err := ws.LoadState()
	if err != nil {
		return res, err
	}
	target, err := resolveTarget(j, id)
	if err != nil {
		return res, err
	}
	res.Target = target
	if err := ws.trustTarget(ctx, target); err != nil {
		return res, err
	}
	undo, err := ws.planUndo(ctx, target)
	if err != nil {
		return res, err
	}
	head, headTree, err := ws.Repo.HeadTree(ctx)
	if err != nil {
		return res, err
	}
	// The work tree is captured once (it is the big cost at scale): that
	// capture tells whether the restore would change anything, which
	// ignored files are in the way, what is parked and which untracked
	// files were parked.
	var c *capture
	defer func() { c.discard() }()
	if undo != nil && head.Commit == undo.Base || undo == nil && head.Commit != "" && head.Commit == target.Commit {
		if c, err = ws.captureTree(ctx, head, headTree); err != nil {
			return res, err
		}
		if undo != nil {
			res.Unchanged = undoneBy(c, undo)
		} else {
			res.Unchanged = c.Clean && !c.staged()
		}
		if res.Unchanged {
			return res, nil
		}
	}
	if err := ws.checkBranch(ctx, target, opts.AnyBranch); err != nil {
		return res, err
	}
	if err := ws.verifyTarget(ctx, target); err != nil {
		return res, err
	}
	if err := ws.guardReset(ctx, target); err != nil {
		return res, err
	}
	if c == nil {
		if c, err = ws.captureTree(ctx, head, headTree); err != nil {
			return res, &RestoreError{Reason: "could not park the uncommitted work: " + flat(err) + "; nothing was reset: your work is still in the work tree", Err: err}
		}
	}
	if err := ws.guardIgnored(ctx, c, target); err != nil {
		return res, err
	}
	if err := ws.guardLeftOut(ctx, c, target); err != nil {
		return res, err
	}
	if opts.BeforeReset != nil {
		opts.BeforeReset(ctx, head.Commit, c.Tree, target.Commit)
	}
	untracked, parked, err := ws.parkBeforeRestore(ctx, c, head, target)
	if err != nil {
		return res, err
	}
	res.Parked = parked
	faultPoint("restore-after-park")
	if err := ws.resetTo(ctx, target, parked, head); err != nil {
		return res, err
	}
	if undo != nil {
		if err := ws.finishUndo(ctx, target, undo, head); err != nil {
			return res, ws.afterReset(target, parked, "undoing the restore", err)
		}
		res.Base = undo.Base
	}
	faultPoint("restore-mid-reset")
	res.Removed, err = ws.removeParkedUntracked(ctx, target.Commit, parked.Commit, untracked)
	if err != nil {
		return res, ws.afterReset(target, parked, "removing the untracked files the checkpoint does not have", err)
	}
	if parked.Commit != "" {
		e, err := ws.appendPreRestore(ctx, j, target, parked.Commit, head)
		if err != nil {
			return res, ws.afterReset(target, parked, "recording the pre-restore checkpoint", err)
		}
		res.PreRestore = &e
	}
	faultPoint("restore-after-journal")
	if err := ws.setIdle(st); err != nil {
		return res, ws.afterReset(target, parked, "writing "+ws.StatePath(), err)
	}
	faultPoint("restore-after-state")
	if err := ws.appendMemory(restoreNote(ws.stamp(), target, parked)); err != nil {
		return res, ws.afterReset(target, parked, "writing "+ws.MemoryPath(), err)
	}
	return res, nil
}

func (ws *Workspace) refuseWhileRunning() error {
	active, pid, err := ws.RunActive()
	if err != nil {
		return err
	}
	if active {
		return &RunActiveError{PID: pid, Restore: true}
	}
	return nil
}

// isHexPrefix reports whether s could abbreviate a commit id: 7 to 64 hex
// digits.
func isHexPrefix(s string) bool {
	if len(s) < 7 || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// resolveTarget finds the checkpoint named by id: a checkpoint id, or an
// unambiguous prefix (7 hex digits or more) of a checkpoint's commit.
func resolveTarget(j *Journal, id string) (Entry, error) {
	if e, ok := j.Find(id); ok {
		commits := map[string]bool{}
		for _, x := range j.Entries {
			if x.ID == id {
				commits[x.Commit] = true
			}
		}
		if len(commits) > 1 {
			// Only a hand-edited journal has this; guessing which one was
			// meant could reset to the wrong commit.
			return Entry{}, &RestoreError{Reason: fmt.Sprintf("checkpoints.json has %d entries with the id %s, for different commits; fix the journal (or restore by commit: git autodev restore <sha>) so that the id names one checkpoint; nothing was changed", len(commits), id)}
		}
		return e, nil
	}
	if isHexPrefix(id) {
		p := strings.ToLower(id)
		var match Entry
		commits := map[string]bool{}
		for _, e := range j.Entries {
			if strings.HasPrefix(e.Commit, p) {
				if !commits[e.Commit] {
					match = e // the entry that first recorded the commit
				}
				commits[e.Commit] = true
			}
		}
		switch len(commits) {
		case 1:
			return match, nil
		case 0:
		default:
			return Entry{}, &RestoreError{Reason: fmt.Sprintf("ambiguous checkpoint: %s matches %d commits; give more digits or the checkpoint id", id, len(commits))}
		}
	}
	reason := "unknown checkpoint: " + id
	if j.Missing {
		reason += "\n(" + "there is no checkpoints.json; git autodev restore lists what --rebuild can recover)"
	} else {
		reason += "\nRun git autodev restore (without an id) to list the checkpoint ids; nothing was changed."
	}
	return Entry{}, &RestoreError{Reason: reason}
}

// verifyTarget refuses a checkpoint whose commit the object store lacks.
func (ws *Workspace) verifyTarget(ctx context.Context, target Entry) error {
	_, ok, err := ws.Repo.ResolveCommit(ctx, target.Commit)
	if err != nil {
		return err
	}
	if !ok || target.Commit == "" {
		return &RestoreError{Reason: fmt.Sprintf("checkpoint %s's commit %s is missing from the object store, so it cannot be restored; nothing was changed", target.ID, target.Commit)}
	}
	return nil
}

// guardReset refuses, before anything changes, the restores that git reset
// --hard would make lose something parking cannot keep: a merge, rebase,
// cherry-pick or revert in progress (its state lives in the index and the
// git dir), ignored files where the checkpoint has files (reset treats
// ignored files as expendable), and edits to files marked assume-unchanged
// or skip-worktree (git add does not see them, so they would not be parked).
func (ws *Workspace) guardReset(ctx context.Context, target Entry) error {
	if op := ws.Repo.OperationInProgress(); op != "" {
		return &RestoreError{Reason: fmt.Sprintf("a %s is in progress, and resetting would throw away its state; finish the %s (or abort it with git %s --abort), then restore again; nothing was changed", op, op, op)}
	}
	if l := ws.Repo.HeadRefLock(); l != "" {
		// git reset --hard would rewrite the files, then fail to move HEAD.
		return &RestoreError{Reason: fmt.Sprintf("%s exists: a git command is moving HEAD or its branch, or one was killed while it did, and the reset could not move HEAD; if no git command is running in this repository, remove %s, then restore again; nothing was changed", ws.shown(l), ws.shown(l))}
	}
	hidden, err := ws.Repo.HiddenLocalEdits(ctx)
	if err != nil {
		return err
	}
	if len(hidden) > 0 {
		return &RestoreError{Reason: fmt.Sprintf("%s marked assume-unchanged or skip-worktree but edited in the work tree (%s); parking cannot see those edits and the reset would overwrite them: clear the mark (git update-index --no-assume-unchanged / --no-skip-worktree) or save the files elsewhere, then restore again; nothing was changed", plural(len(hidden), "file is", "files are"), strings.Join(quoteAll(hidden), ", "))}
	}
	return nil
}

// guardIgnored is the last of guardReset's refusals, for a work tree
// captured as c: ignored files where the checkpoint has files.
func (ws *Workspace) guardIgnored(ctx context.Context, c *capture, target Entry) error {
	inWay, err := ws.ignoredInTheWay(ctx, c, target.Commit)
	if err != nil {
		return err
	}
	if len(inWay) > 0 {
		return &RestoreError{Reason: fmt.Sprintf("%s in the way of checkpoint %s (%s): the reset would overwrite or delete %s, and parking never keeps ignored files: move %s aside, then restore again; nothing was changed", plural(len(inWay), "ignored file or folder is", "ignored files or folders are"), target.ID, strings.Join(quoteAll(inWay), ", "), pronoun(len(inWay)), pronoun(len(inWay)))}
	}
	return nil
}

// guardLeftOut refuses a restore whose reset would overwrite an
// untracked file that parking leaves out (a protected or too large file,
// which a restore never removes): the checkpoint has a file at its path.
func (ws *Workspace) guardLeftOut(ctx context.Context, c *capture, target Entry) error {
	if len(c.LeftOut) == 0 {
		return nil
	}
	in, err := ws.filesIn(ctx, target.Commit, leftOutPaths(c.LeftOut))
	if err != nil {
		return err
	}
	var inWay []string
	for _, l := range c.LeftOut {
		if in[l.Path] {
			inWay = append(inWay, l.String())
		}
	}
	if len(inWay) == 0 {
		return nil
	}
	verb := " is"
	if len(inWay) > 1 {
		verb = " are"
	}
	return &RestoreError{Reason: fmt.Sprintf("untracked %s%s never parked or checkpointed, and checkpoint %s has a file there: the reset would overwrite %s; move %s aside, then restore again; nothing was changed", strings.Join(inWay, ", "), verb, target.ID, pronoun(len(inWay)), pronoun(len(inWay)))}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// quoteAll quotes paths that would not read back from a message line.
func quoteAll(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = pathenc.QuoteInList(p)
	}
	return out
}

// parkBeforeRestore is step 3: commit the captured work onto
// autodev/pre-restore-<time>, and list the untracked files that went into
// it (only those may be removed after the reset).
func (ws *Workspace) parkBeforeRestore(ctx context.Context, c *capture, head git.Head, target Entry) ([]string, Parked, error) {
	untracked, err := ws.parkedUntracked(ctx, c)
	if err != nil {
		return nil, Parked{}, &RestoreError{Reason: "could not list the untracked files: " + flat(err) + "; nothing was changed", Err: err}
	}
	p, err := ws.parkCaptured(ctx, c, head, PreRestoreLabel(target), PreRestorePrefix, false)
	if err != nil {
		return nil, Parked{}, &RestoreError{Reason: "could not park the uncommitted work: " + flat(err) + "; nothing was reset: your work is still in the work tree", Err: err}
	}
	return untracked, p, nil
}

// resetTo is step 4's git reset --hard.
func (ws *Workspace) resetTo(ctx context.Context, target Entry, parked Parked, head git.Head) error {
	err := ws.Repo.ResetHard(ctx, target.Commit, "autodev: restore "+target.ID)
	if err == nil {
		return nil
	}
	where := "the work tree had no uncommitted work"
	if head.Commit != "" {
		where += fmt.Sprintf("; HEAD was at %s", Short(head.Commit))
	}
	if parked.Branch != "" {
		where = fmt.Sprintf("your uncommitted work is saved on %s (%s)", parked.Branch, Short(parked.Commit))
	}
	return &RestoreError{Reason: fmt.Sprintf("git reset --hard %s failed: %s; nothing was reverted: %s", Short(target.Commit), flat(err), where), Err: err}
}

// afterReset reports a failure once the tree was already reset.
func (ws *Workspace) afterReset(target Entry, parked Parked, step string, err error) error {
	where := ""
	if parked.Branch != "" {
		where = fmt.Sprintf("; your uncommitted work is saved on %s (%s)", parked.Branch, Short(parked.Commit))
	}
	return &RestoreError{Reason: fmt.Sprintf("the tree was reset to %s (%s), but %s failed: %s%s", target.ID, Short(target.Commit), step, flat(err), where), Err: err}
}

// appendPreRestore is step 5: the entry that undoes the restore.
func (ws *Workspace) appendPreRestore(ctx context.Context, j *Journal, target Entry, commit string, head git.Head) (Entry, error) {
	id, err := ws.pin(ctx, j, commit)
	if err != nil {
		return Entry{}, err
	}
	e := ws.newEntry(id, commit, PreRestoreLabel(target), TypePreRestore, nil, nil)
	at := ws.origin(head)
	e.Worktree, e.Branch = at.Worktree, at.Branch
	if commit == head.Commit {
		// A clean tree: the entry records the old HEAD, whose commit
		// says another label and type (--rebuild).
		ws.keepKind(e)
	}
	j.Entries = append(j.Entries, e)
	return e, ws.saveJournal(j)
}

// restoreNote is the memory.md line of step 7.
func restoreNote(stamp string, target Entry, parked Parked) string {
	s := fmt.Sprintf("RESTORE: %s restored %s \"%s\" (%s)", stamp, target.ID, target.Label, Short(target.Commit))
	if parked.Branch != "" {
		return s + "; uncommitted work parked on " + parked.Branch
	}
	return s + "; the tree was clean, nothing parked"
}

// flat puts an error on one line, so a refusal stays one line of text.
func flat(err error) string {
	var parts []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}
