// Package retire takes tasks out of the workspace: drop (one task or
// several, all or none), prune (the tasks past an age, automatically when
// a retention is set) and du (what the tasks keep on disk).
package retire

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
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/review"
	"github.com/nudgethis/git-nudge/internal/proc"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// Drop removes a task: its worktree (only the one git-nudge made for it),
// its snapshot and result refs, its logs and its record. It refuses tasks
// whose files may be in the workspace (applying, applied, undoing,
// recovery_required) and tasks a live process is working on; force lifts
// the refusal for applied and recovery_required tasks, whose files stay in
// the work tree exactly as they are (only the ability to undo is given up).
func Drop(ctx context.Context, w *nudge.Workspace, id string, force bool) error {
	_, err := DropAll(ctx, w, []string{id}, force)
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
func DropAll(ctx context.Context, w *nudge.Workspace, ids []string, force bool) ([]string, error) {
	l, err := w.Lock(ctx, "git-nudge drop")
	if err != nil {
		return nil, err
	}
	defer func() { l.Release() }()
	unique := nudge.Distinct(ids)
	var tasks []*nudge.Task
	for stopped := false; ; stopped = true {
		var refusedIDs, remote []string
		var refused []*nudge.RefusedError
		tasks = tasks[:0]
		for _, id := range unique {
			t, err := w.Load(id)
			if err != nil {
				if len(ids) > 1 {
					return nil, fmt.Errorf("%w; nothing was dropped", err)
				}
				return nil, err
			}
			if r := dropRefusal(ctx, w, t, force); r != nil {
				if !stopped && stoppableRemote(w, t) {
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
		serr := stopRemoteRuns(ctx, w, remote)
		if l, err = w.Lock(context.WithoutCancel(ctx), "git-nudge drop"); err != nil {
			return nil, errors.Join(serr, err)
		}
		if serr != nil {
			return nil, serr
		}
	}
	for i, t := range tasks {
		if err := remove(ctx, w, t, force); err != nil {
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
func joinRefusals(ids []string, refused []*nudge.RefusedError) *nudge.RefusedError {
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
	return &nudge.RefusedError{What: "cannot drop " + strings.Join(ids, ", "), Reasons: reasons, Next: strings.Join(next, "\n")}
}

// dropRefusal says why t cannot be dropped (nil when it can).
func dropRefusal(ctx context.Context, w *nudge.Workspace, t *nudge.Task, force bool) *nudge.RefusedError {
	id := t.ID
	refuse := func(reason, next string) *nudge.RefusedError {
		return &nudge.RefusedError{What: "cannot drop " + id, Reasons: []string{reason}, Next: next}
	}
	switch {
	case t.State == nudge.StateApplied && !force:
		return refuse("it is applied: its changes are in the workspace and its record is what undo needs",
			fmt.Sprintf("Undo it first (git nudge undo %s) or save it (git nudge save %s). If you have made its files your own (edited or committed them), git nudge drop --force %s forgets the task and leaves every file as it is.", id, id, id))
	case t.State == nudge.StateApplying || t.State == nudge.StateUndoing:
		return refuse(fmt.Sprintf("it is %s", t.State), "Wait for that command to finish.")
	case t.State == nudge.StateRecoveryRequired && !force:
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
		lost, err := w.Uncaptured(ctx, t)
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
func remove(ctx context.Context, w *nudge.Workspace, t *nudge.Task, force bool) error {
	id := t.ID
	// With --force the worktree may hold uncaptured work: it is removed,
	// never pooled.
	if err := w.RemoveTaskWorktree(ctx, t, !force); err != nil {
		return err
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
	if err := review.RemoveComments(w, id); err != nil {
		return err
	}
	if err := os.Remove(w.RunLockPath(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return journal.RemoveIn(w.Repo.Tx, w.TaskPath(id))
}
