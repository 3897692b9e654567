package autodev

import (
	"context"
	"fmt"

	"github.com/nudgethis/git-nudge/internal/git"
)

// Branch prefixes for parked work.
const (
	PreRestorePrefix = "autodev/pre-restore-"
	ParkedPrefix     = "autodev/parked-"
)

// Parked is work committed onto a branch of its own.
type Parked struct {
	Branch string // short branch name; "" when nothing needed parking
	Commit string // the parked commit (HEAD's own when the tree was clean)
	Clean  bool   // the work tree matched HEAD: no new commit was made
	// LeftOut are the untracked files not parked (protected, too large):
	// they stay in the work tree, and a restore never removes them.
	LeftOut []LeftOut
}

// parkTree commits the work tree (as a checkpoint would: tracked changes,
// staged or not, untracked files; not ignored files, not .autodev/) with
// HEAD as parent, onto a new branch <prefix><time>. HEAD, the current
// branch, the user's index and the files are left exactly as they are. A
// clean tree makes no commit; with branchWhenClean the branch then points
// at HEAD, otherwise no branch is made.
func (ws *Workspace) parkTree(ctx context.Context, head git.Head, headTree, label, prefix string, branchWhenClean bool) (Parked, error) {
	c, err := ws.captureTree(ctx, head, headTree)
	if err != nil {
		return Parked{}, err
	}
	defer c.discard()
	return ws.parkCaptured(ctx, c, head, label, prefix, branchWhenClean)
}

// parkCaptured is parkTree for a work tree already captured as c.
func (ws *Workspace) parkCaptured(ctx context.Context, c *capture, head git.Head, label, prefix string, branchWhenClean bool) (Parked, error) {
	var err error
	// Parked work is brought back with its index, so the index is
	// recorded whenever it differs from the work tree.
	indexTree := ""
	if c.staged() {
		indexTree = c.IndexTree
	}
	clean := c.Clean && indexTree == ""
	p := Parked{Commit: head.Commit, Clean: clean, LeftOut: c.LeftOut}
	if !clean {
		p.Commit, err = ws.commitWithIndex(ctx, c.Tree, indexTree, head, commitMessage(label, "", nil, nil, ws.origin(head)))
		if err != nil {
			return Parked{}, err
		}
	}
	if p.Commit == "" || (clean && !branchWhenClean) {
		return p, nil
	}
	p.Branch, err = ws.createBranch(ctx, prefix, p.Commit, SubjectPrefix+label)
	if err != nil {
		return Parked{}, fmt.Errorf("the work was committed as %s but no branch could be made for it: %w", p.Commit, err)
	}
	return p, nil
}

// ParkedLabel is the label of a parked commit ("parked — <label>").
func ParkedLabel(label string) string {
	if firstLine(label) == "" {
		label = "parked work"
	}
	return "parked — " + firstLine(label)
}

// Park commits the whole work tree onto a new branch autodev/parked-<time>
// without changing the work tree, the index or HEAD, and marks the run
// state as error: the work failed after a step that cannot be undone, so
// the tree is kept as it is for a person to look at.
func (ws *Workspace) Park(ctx context.Context, label string) (Parked, error) {
	lk, err := ws.lock(ctx, "park")
	if err != nil {
		return Parked{}, err
	}
	defer lk.Release()
	st, err := ws.LoadState()
	if err != nil {
		return Parked{}, err
	}
	head, headTree, err := ws.Repo.HeadTree(ctx)
	if err != nil {
		return Parked{}, err
	}
	p, err := ws.parkTree(ctx, head, headTree, ParkedLabel(label), ParkedPrefix, true)
	if err != nil {
		return Parked{}, err
	}
	faultPoint("park-after-branch")
	st.Status = StatusError
	if err := ws.saveState(st); err != nil {
		return p, fmt.Errorf("the work is parked on %s, but %s could not be written: %w", p.Branch, ws.StatePath(), err)
	}
	return p, nil
}
