package autodev

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
)

// Trailers that say where an autodev commit was made.
const (
	worktreeTrailer = "Autodev-Worktree: "
	branchTrailer   = "Autodev-Branch: "
)

// DetachedBranch is the branch recorded for a checkpoint made on a
// detached HEAD.
const DetachedBranch = "HEAD"

// origin is where a checkpoint or parked commit was made: the top level of
// the work tree and the branch (DetachedBranch when detached).
type origin struct {
	Worktree string
	Branch   string
}

func (ws *Workspace) origin(head git.Head) origin {
	b := head.ShortBranch()
	if head.Detached() {
		b = DetachedBranch
	}
	return origin{Worktree: ws.Repo.WorkTree, Branch: b}
}

// quoteTrailer keeps a trailer value on one line and reading back as it
// was: a value with a line break, a tab, a quote or spaces at its ends is
// written as a Go-quoted string.
func quoteTrailer(v string) string {
	if strings.ContainsAny(v, "\n\r\t\"\\") || strings.TrimSpace(v) != v {
		return strconv.Quote(v)
	}
	return v
}

func unquoteTrailer(v string) string {
	v = strings.TrimRight(v, "\r")
	if strings.HasPrefix(v, `"`) {
		if u, err := strconv.Unquote(strings.TrimSpace(v)); err == nil {
			return u
		}
	}
	return strings.TrimSpace(v)
}

// trailerValue is the last value of a trailer in a commit message ("" when
// absent).
func trailerValue(msg, key string) string {
	val := ""
	for _, l := range strings.Split(msg, "\n") {
		if v, ok := strings.CutPrefix(l, key); ok {
			val = unquoteTrailer(v)
		}
	}
	return val
}

// owner decides whether autodev commits belong to this worktree: those
// whose Autodev-Worktree trailer names it do, those naming another current
// worktree of the repository do not. A commit without the trailer (a
// participant's own commit recorded as a checkpoint, or one made before
// the trailer existed), or naming a worktree that is gone, belongs to the
// main worktree, and to a linked one when its HEAD reaches it.
type owner struct {
	ws     *Workspace
	others map[string]bool // top levels of the other worktrees; nil until needed
	head   string
	main   bool
}

func (ws *Workspace) newOwner(ctx context.Context) (*owner, error) {
	o := &owner{ws: ws, main: samePath(ws.Repo.GitDir, ws.Repo.CommonDir)}
	head, err := ws.Repo.Head(ctx)
	if err != nil {
		return nil, err
	}
	o.head = head.Commit
	return o, nil
}

func (o *owner) mine(ctx context.Context, c git.CommitInfo) (bool, error) {
	wt := trailerValue(c.Message, worktreeTrailer)
	if wt != "" {
		if samePath(wt, o.ws.Repo.WorkTree) {
			return true, nil
		}
		if o.others == nil {
			list, err := o.ws.Repo.Worktrees(ctx)
			if err != nil {
				return false, err
			}
			o.others = map[string]bool{}
			for _, p := range list {
				if !samePath(p, o.ws.Repo.WorkTree) {
					o.others[filepath.Clean(p)] = true
				}
			}
		}
		if o.others[filepath.Clean(wt)] {
			return false, nil
		}
	}
	if o.main {
		return true, nil
	}
	if o.head == "" {
		return false, nil
	}
	return o.ws.Repo.IsAncestor(ctx, c.ID, o.head)
}

func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// BranchError refuses to restore a checkpoint recorded on another branch
// than the current one.
type BranchError struct {
	Target  Entry
	Current string
}

func (e *BranchError) Error() string {
	now, moved := "HEAD is on "+branchPhrase(e.Current), branchPhrase(e.Current)
	if e.Current == DetachedBranch {
		now, moved = "HEAD is detached", "the detached HEAD"
	}
	return fmt.Sprintf("checkpoint %s was made on %s, but %s: restoring it would reset %s to another branch's commit; switch to %s first, or run git autodev restore --any-branch %s to reset %s anyway; nothing was changed",
		e.Target.ID, branchPhrase(e.Target.Branch), now, moved, switchHint(e.Target.Branch), e.Target.ID, moved)
}

func branchPhrase(b string) string {
	if b == DetachedBranch {
		return "a detached HEAD"
	}
	return "branch " + b
}

func switchHint(b string) string {
	if b == DetachedBranch {
		return "the checkpoint's commit (git switch --detach)"
	}
	return b + " (git switch " + b + ")"
}

// checkBranch refuses a target recorded on another branch than HEAD's,
// unless anyBranch. Entries that predate the branch field are not checked.
func (ws *Workspace) checkBranch(ctx context.Context, target Entry, anyBranch bool) error {
	if anyBranch || target.Branch == "" {
		return nil
	}
	head, err := ws.Repo.Head(ctx)
	if err != nil {
		return err
	}
	cur := ws.origin(head).Branch
	if cur == target.Branch {
		return nil
	}
	be := &BranchError{Target: target, Current: cur}
	return &RestoreError{Reason: be.Error(), Err: be}
}
