package autodev

import (
	"context"
	"fmt"
	"strconv"

	"github.com/nudgethis/git-nudge/internal/refs"
)

// trustTarget refuses a checkpoint whose journal entry nothing confirms.
// checkpoints.json is a file in the work tree that anything (a task, an
// agent) can edit, so its commit is believed only when it is a full object
// id in this repository's format and refs/autodev/checkpoints/<id>, which
// autodev created together with the checkpoint, holds the same commit. A
// journal value is never handed to git before this check: "HEAD~1" or
// "--hard" must not become a revision expression or an option.
func (ws *Workspace) trustTarget(ctx context.Context, target Entry) error {
	if !refs.Checkpoint.Valid(target.ID) {
		return &RestoreError{Reason: fmt.Sprintf("checkpoints.json has an entry with the id %s, which autodev never makes (ids are c1, c2, ...); the file was edited by hand or by a task: fix or remove that entry (or move the file aside and run git autodev restore --rebuild); nothing was changed", strconv.Quote(target.ID))}
	}
	ref := refs.Checkpoint.Ref(target.ID)
	pinned, ok, err := ws.Repo.ReadRef(ctx, ref)
	if err != nil {
		return err
	}
	if !ws.Repo.ValidID(target.Commit) {
		where := "no ref " + ref + " exists either"
		if ok {
			where = ref + " holds " + pinned
		}
		return &RestoreError{Reason: fmt.Sprintf("checkpoints.json records checkpoint %s's commit as %s, which is not a full commit id (%d hex digits); the file was edited by hand or by a task, so this entry is not trusted (%s): put the full id back in .autodev/checkpoints.json (or move the file aside and run git autodev restore --rebuild); nothing was changed", target.ID, strconv.Quote(target.Commit), len(ws.Repo.ZeroID()), where)}
	}
	if !ok {
		if err := ws.verifyTarget(ctx, target); err != nil {
			return err // the commit is not even there: say that
		}
		return &RestoreError{Reason: fmt.Sprintf("checkpoints.json says checkpoint %s is commit %s, but no ref %s pins it, so nothing confirms the entry (the journal is a file anything in the work tree can edit); check the commit (git log -1 %s) and, if it is the checkpoint you want, pin it with git update-ref %s %s, then restore again; nothing was changed", target.ID, Short(target.Commit), ref, target.Commit, ref, target.Commit)}
	}
	if pinned != target.Commit {
		return &RestoreError{Reason: fmt.Sprintf("checkpoints.json says checkpoint %s is commit %s, but %s holds %s; the ref is what autodev wrote when it made the checkpoint, the journal is a file anything in the work tree can edit, so the ref is the one to trust unless you changed it yourself: compare them (git log -1 %s; git log -1 %s), then either set the entry's commit in .autodev/checkpoints.json to %s, or, to trust the journal, run git update-ref %s %s; nothing was changed", target.ID, Short(target.Commit), ref, Short(pinned), pinned, target.Commit, pinned, ref, target.Commit)}
	}
	return nil
}
