package nudge

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/proc"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// Drop removes a task: its worktree (only the one git-nudge made for it),
// its snapshot and result refs, its logs and its record. It refuses tasks
// whose files may be in the workspace (applying, applied, undoing,
// recovery_required) and tasks a live process is working on; force lifts
// the refusal for applied and recovery_required tasks, whose files stay in
// the work tree exactly as they are (only the ability to undo is given up).
func (w *Workspace) Drop(ctx context.Context, id string, force bool) error {
	_, err := w.DropAll(ctx, []string{id}, force)
	return err
}

// DropAll is Drop of each of ids (a repeated one counts once) under one
// lock, all or none: every task is looked at first, and when any is
// refused (or unknown) nothing is dropped and every reason is given at
// once. It returns the ids dropped, in order.
//
// A task running on a runner (a container, an ssh host, a command
// runner) is stopped first when nothing else refuses the drop: its
// command is sent SIGTERM (SIGKILL later), which ends the remote work,
// and once the run has recorded its end the task is dropped like any.
func (w *Workspace) DropAll(ctx context.Context, ids []string, force bool) ([]string, error) {
	l, err := w.Lock(ctx, "git-nudge drop")
	if err != nil {
		return nil, err
	}
	defer func() { l.Release() }()
	unique := Distinct(ids)
	var tasks []*Task
	for stopped := false; ; stopped = true {
		var refusedIDs, remote []string
		var refused []*RefusedError
		tasks = tasks[:0]
		for _, id := range unique {
			t, err := w.Load(id)
			if err != nil {
				if len(ids) > 1 {
					return nil, fmt.Errorf("%w; nothing was dropped", err)
				}
				return nil, err
			}
			if r := w.dropRefusal(ctx, t, force); r != nil {
				if !stopped && w.stoppableRemote(t) {
					remote = append(remote, id)
				} else {
					refusedIDs, refused = append(refusedIDs, id), append(refused, r)
				}
			}
			tasks = append(tasks, t)
		}
		if r := joinRefusals(refusedIDs, refused); r != nil {
			return nil, r
		}
		if len(remote) == 0 {
			break
		}
		// The run records the task's end under the workspace lock.
		l.Release()
		serr := w.stopRemoteRuns(ctx, remote)
		if l, err = w.Lock(context.WithoutCancel(ctx), "git-nudge drop"); err != nil {
			return nil, errors.Join(serr, err)
		}
		if serr != nil {
			return nil, serr
		}
	}
	for i, t := range tasks {
		if err := w.remove(ctx, t, force); err != nil {
			if i == 0 {
				return nil, err
			}
			return nil, fmt.Errorf("%s dropped; dropping %s failed: %w", strings.Join(unique[:i], ", "), t.ID, err)
		}
	}
	return unique, nil
}

// joinRefusals is one refusal for several tasks, refused[i] being ids[i]'s:
// each reason and each next step names its task (nil when none is
// refused; the refusal itself when one is).
func joinRefusals(ids []string, refused []*RefusedError) *RefusedError {
	switch len(refused) {
	case 0:
		return nil
	case 1:
		return refused[0]
	}
	var reasons, next []string
	for i, r := range refused {
		id := ids[i]
		for _, reason := range r.Reasons {
			reasons = append(reasons, id+": "+reason)
		}
		if r.Next != "" {
			next = append(next, id+": "+r.Next)
		}
	}
	next = append(next, "Nothing was dropped; leave these out to drop the others.")
	return &RefusedError{What: "cannot drop " + strings.Join(ids, ", "), Reasons: reasons, Next: strings.Join(next, "\n")}
}

// dropRefusal says why t cannot be dropped (nil when it can).
func (w *Workspace) dropRefusal(ctx context.Context, t *Task, force bool) *RefusedError {
	id := t.ID
	refuse := func(reason, next string) *RefusedError {
		return &RefusedError{What: "cannot drop " + id, Reasons: []string{reason}, Next: next}
	}
	switch {
	case t.State == StateApplied && !force:
		return refuse("it is applied: its changes are in the workspace and its record is what undo needs",
			fmt.Sprintf("Undo it first (git nudge undo %s) or save it (git nudge save %s). If you have made its files your own (edited or committed them), git nudge drop --force %s forgets the task and leaves every file as it is.", id, id, id))
	case t.State == StateApplying || t.State == StateUndoing:
		return refuse(fmt.Sprintf("it is %s", t.State), "Wait for that command to finish.")
	case t.State == StateRecoveryRequired && !force:
		return refuse("it is Recovery required: its record is the evidence needed to repair the files by hand",
			fmt.Sprintf("See git nudge recover %s. Once the files are resolved, git nudge drop --force %s removes the record; the work tree is left as it is.", id, id))
	}
	if w.Busy(id) {
		return refuse(w.BusyReason(t), "Wait for it to finish.")
	}
	if dir := w.WorktreeDir(id); w.HasWorktree(t) {
		// A process the task left (or anything else) working in its
		// worktree could go on writing there, or swap its folders while
		// they are removed: the worktree is never dropped under it, even
		// with --force.
		if hs, ok := proc.Holders(dir); !ok || len(hs) > 0 {
			reason, next := proc.DescribeHolders(dir, hs, ok)
			return refuse(reason, next)
		}
	}
	if !force {
		lost, err := w.uncaptured(ctx, t)
		if err != nil {
			return refuse(fmt.Sprintf("its worktree cannot be read, so whether it holds uncaptured work is not known (%v)", err),
				fmt.Sprintf("git nudge drop --force %s removes the worktree anyway (only the folder inside .nudgethis/worktrees).", id))
		}
		if lost {
			return refuse("its worktree holds changes that neither its snapshot nor its result records (made after the last capture); dropping would delete them",
				fmt.Sprintf("git nudge capture %s records them as the result (then drop it, or apply it); git nudge drop --force %s deletes them.", id, id))
		}
	}
	return nil
}

// remove drops t (Drop's work once nothing refuses it).
func (w *Workspace) remove(ctx context.Context, t *Task, force bool) error {
	id := t.ID
	dir := w.WorktreeDir(id)
	if t.Worktree != nil && filepath.Clean(*t.Worktree) != dir {
		// Never remove a folder the record names outside .nudgethis.
		dir = ""
	}
	// A worktree a sandboxed command ran in is never pooled: Landlock's
	// grant follows its folders wherever they are moved, so a process the
	// command left running could write in the next task's worktree.
	if dir != "" && !force && w.HasWorktree(t) && !t.Sandbox && w.park(ctx, id, dir) {
		// Parked in the pool (pool.go), nothing uncaptured in it.
		dir = ""
	}
	_ = os.Remove(w.trustedIndex(id))
	_ = os.Remove(w.reuseIndex(id))
	if _, err := os.Lstat(dir); dir != "" && errors.Is(err, fs.ErrNotExist) {
		// Gone already; git may still record it (an interrupted pool
		// claim): only that record is forgotten.
		if err := w.Repo.ForgetWorktree(dir); err != nil {
			return err
		}
		dir = ""
	}
	if dir != "" {
		// Never git worktree remove, nor any remover that resolves paths
		// again: a folder the task swaps for a symlink meanwhile would
		// be followed. removeTaskTree unlinks through
		// directory handles, then forgets git's record of the worktree.
		if err := w.removeTaskTree(dir); err != nil {
			return fmt.Errorf("removing the worktree of %s: %w", id, err)
		}
	}
	// Its refs, and the bytes its last apply kept for undo
	// (refs/nudgethis/undo/<id>), in one transaction, each only from the
	// value just read.
	var dels []git.RefUpdate
	for _, ref := range []string{refs.Results + id, refs.Setups + id, refs.Validations + id, refs.Task.Ref(id), refs.UndoBytes + id} {
		old, ok, err := w.Repo.ReadRefFast(ctx, ref)
		if err != nil {
			return err
		}
		if ok {
			dels = append(dels, git.RefUpdate{Name: ref, New: w.Repo.ZeroID(), Old: old})
		}
	}
	if len(dels) > 0 {
		if err := w.Repo.UpdateRefs(ctx, "git nudge drop "+id, dels...); err != nil {
			return err
		}
	}
	if err := os.RemoveAll(filepath.Dir(w.SandboxObjects(id))); err != nil {
		return err
	}
	if err := os.RemoveAll(w.RunnerDir(id)); err != nil {
		return err
	}
	if err := os.RemoveAll(w.LogDir(id)); err != nil {
		return err
	}
	if err := w.removeComments(id); err != nil {
		return err
	}
	if err := os.Remove(w.RunLockPath(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return journal.RemoveIn(w.Repo.Tx, w.TaskPath(id))
}

// isWorktree reports whether git knows dir as one of the repository's
// worktrees.
func (w *Workspace) isWorktree(ctx context.Context, dir string) (bool, error) {
	paths, err := w.Repo.Worktrees(ctx)
	if err != nil {
		return false, err
	}
	for _, p := range paths {
		if p == dir || samePathOnDisk(p, dir) {
			return true, nil
		}
	}
	return false, nil
}

// uncaptured reports whether t's own worktree (the one git-nudge made)
// holds files, other than ignored ones, that match neither its snapshot
// nor its result: work only that worktree has, which drop would delete.
func (w *Workspace) uncaptured(ctx context.Context, t *Task) (bool, error) {
	if !w.HasWorktree(t) || filepath.Clean(*t.Worktree) != w.WorktreeDir(t.ID) {
		return false, nil
	}
	if registered, err := w.isWorktree(ctx, *t.Worktree); err != nil || !registered {
		return false, err
	}
	tree, _, err := w.CaptureWorktree(ctx, t)
	if err != nil {
		return false, err
	}
	for _, c := range []*string{&t.Snapshot, t.Setup, t.Result} {
		if c == nil || *c == "" {
			continue
		}
		known, err := w.Repo.TreeOf(ctx, *c)
		if err != nil {
			return false, err
		}
		if known == tree {
			return false, nil
		}
	}
	return true, nil
}
