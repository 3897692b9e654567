package autodev

import (
	"context"
	"fmt"
	"strings"

	"github.com/nudgethis/git-nudge/internal/agenthooks"
	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// CheckpointRequest asks for one checkpoint.
type CheckpointRequest struct {
	Post     string  // the participant's post; its first line makes the label
	Baseline bool    // a baseline before a run instead of a task checkpoint
	Task     *string // task id, or nil
	Mode     *string // run mode, or nil
	// FromRun fills a nil Task or Mode from state.json while a run is
	// active (a checkpoint made by the run's command).
	FromRun bool
	// Session is the agent conversation of a hook's checkpoint, kept in
	// its entry and as trailers of its commit.
	Session *agenthooks.Session
}

// Outcome says what Checkpoint did.
type Outcome string

const (
	// Committed: uncommitted changes became a checkpoint commit.
	Committed Outcome = "committed"
	// RecordedHead: the tree was clean and HEAD's commit, not yet in the
	// journal, became the checkpoint.
	RecordedHead Outcome = "recorded-head"
	// AlreadyRecorded: the tree was clean and HEAD is already a checkpoint.
	AlreadyRecorded Outcome = "already-recorded"
	// CleanNoBaseline: --baseline on a clean tree.
	CleanNoBaseline Outcome = "clean"
	// NothingYet: an unborn branch with nothing to commit.
	NothingYet Outcome = "empty"
	// Disabled: git config autodev.checkpoints is false.
	Disabled Outcome = "disabled"
	// Adopted: the tree was clean and HEAD is a checkpoint an interrupted
	// command had committed and pinned but not journaled; it is now
	// recorded under its pinned id.
	Adopted Outcome = "adopted"
)

// CheckpointResult is what Checkpoint did and the entry concerned.
type CheckpointResult struct {
	Outcome Outcome
	Entry   *Entry // the new entry, or the existing one for AlreadyRecorded
	Head    string // HEAD's commit afterwards ("" on an unborn branch)
	// IndexWarning is set when the commit was made but the user's index
	// could not be updated to match it.
	IndexWarning error
	// Recovered is the entry of an interrupted checkpoint found pinned but
	// missing from the journal, recorded before this one (nil normally).
	Recovered *Entry
	// LeftOut are the untracked files the checkpoint did not take.
	LeftOut []LeftOut
}

// Checkpoint records the work tree as a checkpoint, holding
// .autodev/lock so that two checkpoints never interleave.
func (ws *Workspace) Checkpoint(ctx context.Context, req CheckpointRequest) (CheckpointResult, error) {
	on, err := ws.Enabled(ctx)
	if err != nil {
		return CheckpointResult{}, err
	}
	if !on {
		return CheckpointResult{Outcome: Disabled}, nil
	}
	lk, err := ws.lock(ctx, "checkpoint")
	if err != nil {
		return CheckpointResult{}, err
	}
	defer lk.Release()
	if req.FromRun {
		if req, err = ws.fromRun(req); err != nil {
			return CheckpointResult{}, err
		}
	}
	return ws.checkpointLocked(ctx, req)
}

func (ws *Workspace) checkpointLocked(ctx context.Context, req CheckpointRequest) (CheckpointResult, error) {
	if op := ws.Repo.OperationInProgress(); op != "" {
		return CheckpointResult{}, fmt.Errorf("a %s is in progress: a checkpoint now would commit conflict markers and replace the index's conflict state; finish the %s (or abort it with git %s --abort), then checkpoint again", op, op, op)
	}
	j, err := ws.loadJournalTail()
	if err != nil {
		return CheckpointResult{}, err
	}
	head, headTree, err := ws.Repo.HeadTree(ctx)
	if err != nil {
		return CheckpointResult{}, err
	}
	if j.Partial() && head.Commit != "" && !j.HasRecent(head.Commit) {
		// HEAD is not the newest checkpoint: whether an earlier one
		// recorded it (or one was interrupted) needs the whole journal.
		if j, err = ws.loadJournalSkim(); err != nil {
			return CheckpointResult{}, err
		}
	}
	recovered, err := ws.adoptInterrupted(ctx, j, head)
	if err != nil {
		return CheckpointResult{}, err
	}
	c, err := ws.captureTree(ctx, head, headTree)
	if err != nil {
		return CheckpointResult{}, err
	}
	res := CheckpointResult{Head: head.Commit, Recovered: recovered, LeftOut: c.LeftOut}
	if c.Clean && recovered != nil {
		// The interrupted command may have died before making the index
		// match its commit: finish that too.
		res.Outcome, res.Entry, res.Recovered = Adopted, recovered, nil
		res.IndexWarning = ws.install(c)
		return res, nil
	}
	if c.Clean {
		c.discard()
		if j.Partial() {
			if j, err = ws.loadJournalSkim(); err != nil {
				return res, err
			}
		}
		res, err := ws.checkpointClean(ctx, j, head, req)
		res.LeftOut = c.LeftOut
		return res, err
	}
	typ, label, body := TypeTask, taskLabel(req.Post), restOf(req.Post)
	if req.Baseline {
		typ, label, body = TypeBaseline, BaselineLabel, ""
	}
	// The index becomes the commit's afterwards: what is
	// staged and found neither in the work tree nor in HEAD is kept as
	// the commit's second parent, so nothing staged is lost.
	indexTree := ""
	if partly, err := ws.partlyStaged(ctx, c); err != nil {
		c.discard()
		return res, err
	} else if partly {
		indexTree = c.IndexTree
	}
	at := ws.origin(head)
	commit, err := ws.commitWithIndex(ctx, c.Tree, indexTree, head, commitMessage(label, body, req.Task, req.Mode, at, sessionTrailers(req.Session)...))
	if err != nil {
		c.discard()
		return res, err
	}
	faultPoint("checkpoint-after-commit")
	id, err := ws.pin(ctx, j, commit, ws.moveHead(head, commit))
	if err != nil {
		c.discard()
		return res, err
	}
	faultPoint("checkpoint-after-ref")
	res.Head = commit
	res.IndexWarning = ws.install(c)
	faultPoint("checkpoint-after-index")
	e := ws.newEntry(id, commit, label, typ, req.Task, req.Mode)
	e.Worktree, e.Branch = at.Worktree, at.Branch
	e.Session = req.Session
	j.Entries = append(j.Entries, e)
	faultPoint("checkpoint-before-journal")
	if err := ws.saveJournal(j); err != nil {
		return res, fmt.Errorf("checkpoint commit %s is on the branch and pinned by refs/autodev/checkpoints/%s, but the journal could not be written: %w", Short(commit), id, err)
	}
	res.Outcome, res.Entry = Committed, &e
	return res, nil
}

// adoptInterrupted records HEAD's commit when a checkpoint died after
// pinning it and before writing the journal (see docs/RELIABILITY.md,
// checkpoint-after-ref): no entry records HEAD, but a checkpoint ref whose
// id the journal does not hold points at it. The entry is read back from
// the commit (label, type, task and mode, as --rebuild does) under the
// pinned id, and the journal is written. It returns nil when there is
// nothing to adopt; the usual case (HEAD recorded) costs no git call.
func (ws *Workspace) adoptInterrupted(ctx context.Context, j *Journal, head git.Head) (*Entry, error) {
	if head.Commit == "" {
		return nil, nil
	}
	if _, ok := j.ByCommit(head.Commit); ok {
		return nil, nil
	}
	names, err := ws.Repo.RefsAt(ctx, refs.Checkpoints, head.Commit)
	if err != nil || len(names) == 0 {
		return nil, err
	}
	id, low := "", 0
	for _, name := range names {
		cand := strings.TrimPrefix(name, refs.Checkpoints)
		n, ok := refs.Checkpoint.Number(cand)
		if !ok || !refs.Checkpoint.Valid(cand) {
			continue
		}
		if _, taken := j.Find(cand); !taken && (id == "" || n < low) {
			id, low = cand, n
		}
	}
	if id == "" {
		return nil, nil
	}
	// The refs are shared by every worktree of the repository, the
	// journal is this worktree's: adopt only a checkpoint whose commit
	// came to this worktree's HEAD by that checkpoint or by a commit made
	// here (a participant's own commit), as the HEAD reflog says; another
	// worktree's checkpoint commit may merely be checked out here.
	moved, msg, ok := ws.Repo.LastHeadMove()
	if !ok || moved != head.Commit || !(msg == "autodev: checkpoint "+id || strings.HasPrefix(msg, "commit")) {
		return nil, nil
	}
	infos, err := ws.Repo.FindCommits(ctx, git.CommitQuery{Revs: []string{head.Commit}, NoWalk: true})
	if err != nil || len(infos) == 0 {
		return nil, err
	}
	e := entryFromCommit(id, infos[0])
	j.Entries = append(j.Entries, e)
	if err := ws.saveJournal(j); err != nil {
		return nil, err
	}
	return &e, nil
}

// checkpointClean handles a tree with nothing uncommitted.
func (ws *Workspace) checkpointClean(ctx context.Context, j *Journal, head git.Head, req CheckpointRequest) (CheckpointResult, error) {
	res := CheckpointResult{Head: head.Commit}
	switch {
	case req.Baseline:
		res.Outcome = CleanNoBaseline
		return res, nil
	case head.Commit == "":
		res.Outcome = NothingYet
		return res, nil
	}
	if e, ok := j.ByCommit(head.Commit); ok {
		res.Outcome, res.Entry = AlreadyRecorded, &e
		return res, nil
	}
	// The participant committed on its own: that commit is the checkpoint.
	post := req.Post
	if firstLine(post) == "" {
		msg, err := ws.Repo.CommitMessage(ctx, head.Commit)
		if err != nil {
			return res, err
		}
		post = msg
	}
	label := taskLabel(post)
	id, err := ws.pin(ctx, j, head.Commit)
	if err != nil {
		return res, err
	}
	faultPoint("checkpoint-after-ref")
	e := ws.newEntry(id, head.Commit, label, TypeTask, req.Task, req.Mode)
	at := ws.origin(head)
	e.Worktree, e.Branch = at.Worktree, at.Branch
	e.Session = req.Session
	ws.keepKind(e) // the commit does not say this label (--rebuild)
	j.Entries = append(j.Entries, e)
	faultPoint("checkpoint-before-journal")
	if err := ws.saveJournal(j); err != nil {
		return res, err
	}
	res.Outcome, res.Entry = RecordedHead, &e
	return res, nil
}

func (ws *Workspace) newEntry(id, commit, label, typ string, task, mode *string) Entry {
	return Entry{ID: id, Commit: commit, Label: label, Type: typ, Time: ws.stamp(), Task: nonEmpty(task), Mode: nonEmpty(mode)}
}

func nonEmpty(s *string) *string {
	if s == nil || *s == "" {
		return nil
	}
	v := *s
	return &v
}

// defaultPost stands in for a missing post.
const defaultPost = "checkpoint"

// taskLabel is "thread — <first line of post>".
func taskLabel(post string) string {
	l := firstLine(post)
	if l == "" {
		l = defaultPost
	}
	return "thread — " + l
}

// restOf is what follows the first line of a post (the commit body).
func restOf(post string) string {
	l := firstLine(post)
	if l == "" {
		return ""
	}
	return post[strings.Index(post, l)+len(l):]
}
