package autodev

import (
	"context"
	"fmt"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
)

// preRestorePrefix starts the label of a pre-restore entry.
const preRestorePrefix = "pre-restore — "

// PreRestoreLabel is the label of the entry that undoes a restore:
// "pre-restore — <label of the target>", never nested (restoring a
// pre-restore entry labels its own entry like the one it restored).
func PreRestoreLabel(target Entry) string {
	label := target.Label
	for strings.HasPrefix(label, preRestorePrefix) {
		label = strings.TrimPrefix(label, preRestorePrefix)
	}
	return preRestorePrefix + label
}

// undoPlan is how restoring a pre-restore entry of parked work undoes the
// restore that parked it: the branch goes back to the parked
// commit's first parent (the HEAD the restore moved away from), the work
// tree becomes the parked commit's tree, and the index the tree recorded
// beside it (its second parent), all uncommitted again.
type undoPlan struct {
	Base      string // the parked commit's first parent: where HEAD goes
	Tree      string // the parked work tree
	Index     string // commit whose tree the index gets
	IndexTree string
}

// planUndo returns the plan for a pre-restore entry whose commit is parked
// work, and nil for any other entry (including the pre-restore entry of a
// clean tree, whose commit is the old HEAD itself: restoring it is a plain
// reset).
func (ws *Workspace) planUndo(ctx context.Context, target Entry) (*undoPlan, error) {
	if target.Type != TypePreRestore || !isFullHex(target.Commit) {
		return nil, nil
	}
	if _, ok, err := ws.Repo.ResolveCommit(ctx, target.Commit); err != nil || !ok {
		return nil, err // a missing commit is refused later, by verifyTarget
	}
	infos, err := ws.Repo.FindCommits(ctx, git.CommitQuery{Revs: []string{target.Commit}, NoWalk: true})
	if err != nil || len(infos) != 1 {
		return nil, err
	}
	c := infos[0]
	if !strings.HasPrefix(c.Subject(), SubjectPrefix+preRestorePrefix) || len(c.Parents) == 0 || len(c.Parents) > 2 {
		return nil, nil
	}
	p := &undoPlan{Base: c.Parents[0], Index: c.ID}
	if len(c.Parents) == 2 {
		p.Index = c.Parents[1]
	}
	if p.Tree, err = ws.Repo.TreeOf(ctx, c.ID); err != nil {
		return nil, err
	}
	p.IndexTree = p.Tree
	if p.Index != c.ID {
		if p.IndexTree, err = ws.Repo.TreeOf(ctx, p.Index); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// undoneBy reports whether the state the plan brings back is the state of
// the work tree captured as c (taken with HEAD at the plan's base): the
// work tree and the index as parked.
func undoneBy(c *capture, p *undoPlan) bool {
	index := c.IndexTree
	if index == "" {
		index = c.Tree
	}
	return c.Tree == p.Tree && index == p.IndexTree
}

// finishUndo runs after the reset to the parked commit: HEAD (the branch,
// or a detached HEAD) moves back to the base without touching the files,
// and the index gets the parked index, so the parked work is uncommitted
// again, staged as it was.
func (ws *Workspace) finishUndo(ctx context.Context, target Entry, p *undoPlan, head git.Head) error {
	faultPoint("restore-undo-after-reset")
	at := git.Head{Branch: head.Branch, Commit: target.Commit}
	if err := ws.Repo.UpdateRefs(ctx, "autodev: restore "+target.ID+" (parked work back, uncommitted)", ws.moveHead(at, p.Base)); err != nil {
		return fmt.Errorf("moving HEAD back to %s: %w", Short(p.Base), err)
	}
	if p.IndexTree == p.Tree {
		return nil // the reset already made the index the parked tree
	}
	if err := ws.Repo.ResetIndexTo(ctx, p.Index); err != nil {
		return fmt.Errorf("bringing the parked index back: %w", err)
	}
	return nil
}

// isFullHex reports whether s is a full object id (40 or 64 hex digits).
func isFullHex(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
