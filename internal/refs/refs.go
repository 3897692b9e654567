// Package refs owns the suite's ref namespaces, the places of its
// journals in a work tree, and the allocation of ids
// (t<N> for nudge tasks, c<N> for autodev checkpoints) by create-only ref
// updates, so that two processes, even in two worktrees of one repository,
// can never be given the same id.
package refs

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
)

// Namespaces.
const (
	// Heads is git's branch folder.
	Heads = "refs/heads/"
	// Nudge holds every ref git nudge keeps; Autodev every ref git
	// autodev keeps.
	Nudge   = "refs/nudgethis/"
	Autodev = "refs/autodev/"
	// Oplog holds the operation log: one ref per worktree,
	// refs/nudgethis-oplog/<worktree>. It is no command's to change.
	Oplog = "refs/nudgethis-oplog/"
	// OplogSegments holds the older segments of each worktree's log:
	// refs/nudgethis-oplog/segments/<worktree>/<N>-<tip>. No worktree's
	// key is "segments" (keys are "main" and "wt-<name>").
	OplogSegments = Oplog + "segments/"

	Snapshots = "refs/nudgethis/snapshots/"
	Results   = "refs/nudgethis/results/"
	Setups    = "refs/nudgethis/setup/"
	// Validations pins what validation commands left in a task's worktree
	// (put back to the result afterwards).
	Validations = "refs/nudgethis/validation/"
	Checkpoints = "refs/autodev/checkpoints/"
)

// UndoBytes pins the raw bytes an apply kept for its undo (a commit whose
// tree holds them at their paths): refs/nudgethis/undo/<id>.
const UndoBytes = "refs/nudgethis/undo/"

// Kind is a family of ids: a letter and the ref folder that pins them.
type Kind struct {
	Letter string // "t" or "c"
	Prefix string // ref folder ending in "/"
}

var (
	Task       = Kind{Letter: "t", Prefix: Snapshots}
	Checkpoint = Kind{Letter: "c", Prefix: Checkpoints}
)

// Ref returns the full ref name of id.
func (k Kind) Ref(id string) string { return k.Prefix + id }

// Valid reports whether id is well formed for this kind ("t12").
func (k Kind) Valid(id string) bool {
	n, ok := k.Number(id)
	return ok && n > 0 && id == k.Letter+strconv.Itoa(n)
}

// Number returns N of "<letter>N".
func (k Kind) Number(id string) (int, bool) {
	rest, ok := strings.CutPrefix(id, k.Letter)
	if !ok || rest == "" || len(rest) > 9 {
		return 0, false
	}
	for _, c := range rest {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil
}

var idRe = regexp.MustCompile(`^[a-z][0-9]+$`)

// Highest returns the largest N among existing ids of this kind.
func (k Kind) Highest(ctx context.Context, r *git.Repo) (int, error) {
	list, err := r.ListRefs(ctx, k.Prefix)
	if err != nil {
		return 0, err
	}
	max := 0
	for _, ref := range list {
		id := strings.TrimPrefix(ref.Name, k.Prefix)
		if !idRe.MatchString(id) {
			continue
		}
		if n, ok := k.Number(id); ok && n > max {
			max = n
		}
	}
	return max, nil
}
