package autodev

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
)

// SquashRequest asks to fold checkpoints into one commit.
type SquashRequest struct {
	// From is the oldest checkpoint to fold (an id, or a commit prefix of
	// at least 7 hex digits); "" folds every checkpoint since the last
	// commit that is not one.
	From string
	// Message is the new commit's message; "" makes one from the labels.
	Message string
}

// SquashResult is what Squash did.
type SquashResult struct {
	Commit string   // the new commit, authored by the user
	Base   string   // its parent ("" when the checkpoints went back to the root)
	Old    string   // where the branch was (the newest checkpoint)
	Branch string   // the branch moved ("HEAD" for a detached HEAD)
	Folded []Entry  // the checkpoints folded, oldest first
	Lines  []string // the labels, oldest first
}

// SquashError is a squash that was refused; nothing was changed.
type SquashError struct{ Reason string }

func (e *SquashError) Error() string { return e.Reason }

// Squash folds the autodev checkpoint commits at the tip of the current
// branch into one commit authored and committed by the user (git's own
// identity), with the same tree. The branch moves to it; the
// work tree and the index are not touched (the tree is the one they were
// compared with). The folded checkpoints keep their refs, so they stay
// restorable, and the journal marks them squashed.
func (ws *Workspace) Squash(ctx context.Context, req SquashRequest) (SquashResult, error) {
	var res SquashResult
	on, err := ws.Enabled(ctx)
	if err != nil {
		return res, err
	}
	if !on {
		return res, ErrCheckpointsOff
	}
	if active, pid, err := ws.RunActive(); err != nil {
		return res, err
	} else if active {
		return res, &SquashError{Reason: fmt.Sprintf("a run is active (process %d holds .autodev/run.lock) and may checkpoint again while the branch moves; squash once the run has ended", pid)}
	}
	lk, err := ws.lock(ctx, "squash")
	if err != nil {
		return res, err
	}
	defer lk.Release()
	if op := ws.Repo.OperationInProgress(); op != "" {
		return res, &SquashError{Reason: fmt.Sprintf("a %s is in progress; finish the %s (or abort it with git %s --abort), then squash", op, op, op)}
	}
	j, err := ws.LoadJournal()
	if err != nil {
		return res, err
	}
	head, headTree, err := ws.Repo.HeadTree(ctx)
	if err != nil {
		return res, err
	}
	if head.Commit == "" {
		return res, &SquashError{Reason: "nothing to squash: there is no commit yet"}
	}
	var from *Entry
	if req.From != "" {
		e, err := resolveTarget(j, req.From)
		if err != nil {
			var re *RestoreError
			if errors.As(err, &re) {
				return res, &SquashError{Reason: strings.ReplaceAll(re.Reason, "\n", "; ")}
			}
			return res, err
		}
		if !squashable(e) {
			return res, &SquashError{Reason: fmt.Sprintf("%s is a %s entry, not a checkpoint commit of a branch; name the oldest checkpoint to fold (git autodev restore lists them)", e.ID, e.Type)}
		}
		from = &e
	}
	folded, base, err := ws.foldRange(ctx, j, head, from)
	if err != nil {
		return res, err
	}
	known, err := ws.Repo.UserIdentityKnown(ctx)
	if err != nil {
		return res, err
	}
	if !known {
		return res, &SquashError{Reason: "git does not know who you are, and the squashed commit is yours; set your identity, then run git autodev squash again:\n  git config --global user.name \"Your Name\"\n  git config --global user.email \"you@example.com\""}
	}
	for _, e := range folded {
		res.Lines = append(res.Lines, e.Label)
	}
	msg := req.Message
	if strings.TrimSpace(msg) == "" {
		msg = squashMessage(folded)
	}
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	creq := git.CommitRequest{Tree: headTree, Message: msg}
	if base != "" {
		creq.Parents = []string{base}
	}
	commit, err := ws.Repo.CommitTree(ctx, creq)
	if err != nil {
		return res, err
	}
	ids := make([]string, len(folded))
	for i, e := range folded {
		ids[i] = e.ID
	}
	move := ws.moveHead(head, commit)
	if err := ws.Repo.UpdateRefs(ctx, "autodev: squash "+strings.Join(ids, " "), move); err != nil {
		var le *git.RefLockError
		if errors.As(err, &le) {
			return res, fmt.Errorf("%s moved while the squash was made; nothing was changed, run git autodev squash again (%v)", move.Name, le.Err)
		}
		return res, err
	}
	// The folded checkpoints stay in the journal (and pinned), marked.
	in := map[string]bool{}
	for _, e := range folded {
		in[e.Commit] = true
	}
	for i := range j.Entries {
		if in[j.Entries[i].Commit] && squashable(j.Entries[i]) {
			j.Entries[i].Squashed = commit
		}
	}
	if err := ws.saveJournal(j); err != nil {
		return res, fmt.Errorf("the checkpoints are squashed into %s (the branch is there), but the journal could not mark them: %w", Short(commit), err)
	}
	res = SquashResult{Commit: commit, Base: base, Old: head.Commit, Branch: move.Name, Folded: folded, Lines: res.Lines}
	return res, nil
}

// squashable reports whether e is a checkpoint commit made on a branch
// (not a pre-restore record of parked work) and not squashed yet.
func squashable(e Entry) bool {
	return (e.Type == TypeTask || e.Type == TypeBaseline) && e.Squashed == ""
}

// foldRange walks the first parents from HEAD while they are autodev
// checkpoint commits (journaled, made by autodev, not squashed yet), down
// to from when it is given. It returns them oldest first and the commit
// below them ("" for the root).
func (ws *Workspace) foldRange(ctx context.Context, j *Journal, head git.Head, from *Entry) ([]Entry, string, error) {
	var folded []Entry
	cur := head.Commit
	for cur != "" {
		e, ok := j.ByCommit(cur)
		var parents []string
		if ok && squashable(e) {
			var msg string
			var err error
			if parents, msg, err = ws.Repo.ReadCommit(ctx, cur); err != nil {
				return nil, "", err
			}
			// A participant's own commit, recorded as a checkpoint, is
			// the user's history: never folded.
			ok = strings.HasPrefix(msg, SubjectPrefix)
		} else {
			ok = false
		}
		if !ok {
			if from == nil && len(folded) > 0 {
				reverse(folded)
				return folded, cur, nil
			}
			return nil, "", ws.stopAt(ctx, cur, head, folded, from)
		}
		folded = append(folded, e)
		base := ""
		if len(parents) > 0 {
			base = parents[0]
		}
		if from != nil && e.Commit == from.Commit {
			reverse(folded)
			return folded, base, nil
		}
		cur = base
	}
	// The root was reached.
	if from != nil {
		return nil, "", &SquashError{Reason: fmt.Sprintf("checkpoint %s is not below HEAD on the current branch; name a checkpoint of this branch (git autodev restore lists them)", from.ID)}
	}
	reverse(folded)
	return folded, "", nil
}

// stopAt explains why nothing can be folded at commit cur.
func (ws *Workspace) stopAt(ctx context.Context, cur string, head git.Head, folded []Entry, from *Entry) error {
	subject := ""
	if _, msg, err := ws.Repo.ReadCommit(ctx, cur); err == nil {
		subject, _, _ = strings.Cut(msg, "\n")
	}
	what := fmt.Sprintf("%s (%q)", Short(cur), subject)
	if from != nil {
		if len(folded) == 0 && cur == head.Commit {
			return &SquashError{Reason: fmt.Sprintf("HEAD %s is not an autodev checkpoint commit, so nothing from %s up to HEAD can be folded; make a checkpoint or squash on the branch that has %s", what, from.ID, from.ID)}
		}
		return &SquashError{Reason: fmt.Sprintf("commit %s, between checkpoint %s and HEAD, is not an autodev checkpoint commit, and a squash never folds commits of your own; squash only the checkpoints above it (git autodev squash without --from), or move that commit first (git rebase -i)", what, from.ID)}
	}
	if len(folded) == 0 {
		return &SquashError{Reason: fmt.Sprintf("nothing to squash: HEAD %s is not an autodev checkpoint commit (or is already squashed); make checkpoints first, or name the oldest one with --from", what)}
	}
	return nil
}

func reverse(es []Entry) {
	for i, k := 0, len(es)-1; i < k; i, k = i+1, k-1 {
		es[i], es[k] = es[k], es[i]
	}
}

// squashMessage is the default message: the newest label (without the
// "thread — " in front) as subject, and every folded label below it.
func squashMessage(folded []Entry) string {
	subject := strings.TrimPrefix(folded[len(folded)-1].Label, "thread — ")
	var b strings.Builder
	b.WriteString(subject + "\n\nSquashed from autodev checkpoints:\n")
	for _, e := range folded {
		fmt.Fprintf(&b, "- %s %s\n", e.ID, e.Label)
	}
	return b.String()
}
