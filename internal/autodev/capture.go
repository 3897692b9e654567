package autodev

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/snapshot"
)

// capture is the work tree written as a tree object through a private
// copy of the user's index, under the checkpoint's policy
// (snapshot.CheckpointPolicy): tracked changes (staged or not) and
// untracked files, without ignored files, without .autodev/ and without
// the untracked files a checkpoint leaves out.
type capture struct {
	ix    git.Index
	Tree  string
	Clean bool // the tree is HEAD's tree (or empty on an unborn branch)
	// IndexTree is the tree of the user's index as it was ("" when it
	// cannot be written as a tree: no index file, or unmerged entries).
	IndexTree string
	headTree  string
	// LeftOut are the untracked files not taken (protected, too large).
	LeftOut []LeftOut
}

// staged reports whether the user's index differs from the captured work
// tree: a commit of Tree alone would not keep what is staged.
func (c *capture) staged() bool {
	return c.IndexTree != "" && c.IndexTree != c.Tree
}

// partlyStaged reports whether some path of the user's index holds a
// version that neither the captured work tree nor HEAD has (a partially
// staged file): a checkpoint then records the index too. An
// index that is all HEAD's or all the work tree's needs no record, so
// checkpoints of an agent's plain edits stay one-parent commits.
func (ws *Workspace) partlyStaged(ctx context.Context, c *capture) (bool, error) {
	if !c.staged() || c.IndexTree == c.headTree {
		return false, nil
	}
	notWork, err := ws.Repo.DiffTrees(ctx, c.IndexTree, c.Tree)
	if err != nil {
		return false, err
	}
	differs := make(map[string]bool, len(notWork))
	for _, ch := range notWork {
		if !git.AbsentMode(ch.OldMode) {
			differs[ch.Path] = true
		}
	}
	if len(differs) == 0 {
		return false, nil
	}
	notHead, err := ws.Repo.DiffTrees(ctx, c.headTree, c.IndexTree)
	if err != nil {
		return false, err
	}
	for _, ch := range notHead {
		if !git.AbsentMode(ch.NewMode) && differs[ch.Path] {
			return true, nil
		}
	}
	return false, nil
}

// captureTree builds the work tree's tree in a private copy of the user's
// index (snapshot.CaptureWith under snapshot.CheckpointPolicy). The
// user's index is not touched; discard or install the copy.
func (ws *Workspace) captureTree(ctx context.Context, head git.Head, headTree string) (*capture, error) {
	res, _, err := snapshot.CaptureWith(ctx, ws.Repo, snapshot.Request{Policy: snapshot.CheckpointPolicy, Head: head, HeadTree: headTree})
	if err != nil {
		return nil, err
	}
	c := &capture{ix: res.Index, Tree: res.Tree, Clean: res.Clean, IndexTree: res.IndexTree, headTree: headTree, LeftOut: leftOutOf(res.Skipped)}
	if head.Commit == "" {
		c.headTree = ws.Repo.EmptyTree()
	}
	return c, nil
}

// discard removes the private index.
func (c *capture) discard() {
	if c != nil && c.ix.Path != "" {
		os.Remove(c.ix.Path)
	}
}

// install makes the private index the user's index (it matches the
// commit just made from it).
func (ws *Workspace) install(c *capture) error {
	err := ws.Repo.InstallIndex(c.ix)
	if err != nil {
		c.discard()
	}
	return err
}

// commitMessage is "autodev: <label>", then the rest of a post, then
// trailers naming the task and mode and where the commit was made (read
// back by --rebuild).
func commitMessage(label, body string, task, mode *string, at origin, extra ...string) string {
	var b strings.Builder
	b.WriteString(SubjectPrefix + label + "\n")
	if body = strings.TrimSpace(body); body != "" {
		b.WriteString("\n" + body + "\n")
	}
	var trailers []string
	if task != nil && *task != "" {
		trailers = append(trailers, "Autodev-Task: "+oneLine(*task))
	}
	if mode != nil && *mode != "" {
		trailers = append(trailers, "Autodev-Mode: "+oneLine(*mode))
	}
	if at.Worktree != "" {
		trailers = append(trailers, worktreeTrailer+quoteTrailer(at.Worktree))
	}
	if at.Branch != "" {
		trailers = append(trailers, branchTrailer+quoteTrailer(at.Branch))
	}
	trailers = append(trailers, extra...)
	if len(trailers) > 0 {
		b.WriteString("\n" + strings.Join(trailers, "\n") + "\n")
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// IndexSubjectPrefix starts the subject of the commit that holds the
// user's index beside a checkpoint or parked commit (its second parent).
// It is not "autodev: ", so --rebuild never takes it for a checkpoint.
const IndexSubjectPrefix = "autodev index: "

// commitWithIndex is commit, and when indexTree is set it also records
// the user's index the way git stash does: a commit of the index's tree on
// top of HEAD becomes the second parent, so nothing staged is left
// unreachable. On an unborn branch there is no first parent to
// put it beside, and the index is not recorded.
func (ws *Workspace) commitWithIndex(ctx context.Context, tree, indexTree string, head git.Head, msg string) (string, error) {
	req := git.CommitRequest{Tree: tree, Message: msg, Author: Identity, Committer: Identity}
	if head.Commit != "" {
		req.Parents = []string{head.Commit}
		if indexTree != "" {
			subject, _, _ := strings.Cut(msg, "\n")
			ixMsg := IndexSubjectPrefix + strings.TrimPrefix(subject, SubjectPrefix) + "\n"
			ixCommit, err := ws.Repo.CommitTree(ctx, git.CommitRequest{Tree: indexTree, Parents: []string{head.Commit}, Message: ixMsg, Author: Identity, Committer: Identity})
			if err != nil {
				return "", fmt.Errorf("recording the index: %w", err)
			}
			req.Parents = append(req.Parents, ixCommit)
		}
	}
	return ws.Repo.CommitTree(ctx, req)
}

// moveHead is the compare-and-swap update that moves HEAD (the current
// branch, or a detached HEAD itself) from where it was read to commit.
func (ws *Workspace) moveHead(head git.Head, commit string) git.RefUpdate {
	old := head.Commit
	if old == "" {
		old = ws.Repo.ZeroID()
	}
	if head.Detached() {
		return git.RefUpdate{Name: "HEAD", New: commit, Old: old, NoDeref: true}
	}
	return git.RefUpdate{Name: head.Branch, New: commit, Old: old}
}

// ErrHeadMoved is returned when HEAD changed while a checkpoint was made.
var ErrHeadMoved = errors.New("HEAD moved while the checkpoint was being made; nothing was recorded, run the command again")

// pin allocates the next checkpoint id for commit by creating
// refs/autodev/checkpoints/<id>, in the same transaction as moves (so a
// checkpoint commit and the branch move land together or not at all). A
// lost race for an id (another worktree, another process) moves on to a
// higher number.
func (ws *Workspace) pin(ctx context.Context, j *Journal, commit string, moves ...git.RefUpdate) (string, error) {
	// The repository's high-water mark of checkpoint ids (ids are
	// never reused) starts the search past every id ever pinned, also
	// those op undo removed or a lost journal forgot.
	return refs.Checkpoint.WithHighWater(ctx, ws.Repo, j.NextNumber(), func(n int) (string, error) {
		return ws.pinFrom(ctx, n, commit, moves)
	})
}

func (ws *Workspace) pinFrom(ctx context.Context, n int, commit string, moves []git.RefUpdate) (string, error) {
	for tries := 0; ; tries++ {
		id := refs.Checkpoint.Letter + strconv.Itoa(n)
		ups := append(append([]git.RefUpdate{}, moves...),
			git.RefUpdate{Name: refs.Checkpoint.Ref(id), New: commit, Old: ws.Repo.ZeroID()})
		err := ws.Repo.UpdateRefs(ctx, "autodev: checkpoint "+id, ups...)
		if err == nil {
			return id, nil
		}
		var le *git.RefLockError
		if !errors.As(err, &le) {
			return "", err
		}
		if le.Ref != refs.Checkpoint.Ref(id) {
			return "", fmt.Errorf("%w (%v)", ErrHeadMoved, le.Err)
		}
		if tries >= 20 {
			return "", fmt.Errorf("could not allocate a checkpoint id: %w", err)
		}
		high, herr := refs.Checkpoint.Highest(ctx, ws.Repo)
		if herr != nil {
			return "", herr
		}
		n = max(high, n) + 1
	}
}

// createBranch creates refs/heads/<prefix><time> at commit, never moving an
// existing branch: a clash tries <name>-2, <name>-3, ...
func (ws *Workspace) createBranch(ctx context.Context, prefix, commit, reason string) (string, error) {
	base := prefix + ws.branchTime()
	for i := 1; i <= 100; i++ {
		name := base
		if i > 1 {
			name += "-" + strconv.Itoa(i)
		}
		err := ws.Repo.SetRef(ctx, git.SetRefRequest{Name: "refs/heads/" + name, New: commit, Old: ws.Repo.ZeroID(), Reason: reason})
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, git.ErrRefConflict) || strings.Contains(err.Error(), "exists; cannot create") {
			// Not a name taken by another branch (a folder/file clash such
			// as an existing branch "autodev"): another suffix cannot help.
			return "", err
		}
	}
	return "", fmt.Errorf("could not create a branch %s (100 names taken)", base)
}
