package snapshot

import (
	"context"
	"fmt"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
)

// Policy is what a capture takes from the work tree and what it leaves
// out. There are two: SnapshotPolicy (git nudge snapshot, a task's
// result) and CheckpointPolicy (git autodev checkpoint, park and
// restore's parking). Both leave out ignored files, untracked protected
// paths and untracked files over Options.MaxFileSize; the fields say
// where they differ.
type Policy struct {
	// Name names the policy in errors.
	Name string
	// InIndex makes the capture in a copy of the user's index, returned
	// with the result (Result.Index) for the caller to install or
	// discard, beside the index's own tree (Result.IndexTree): git add -A
	// there, every tracked change taken (a submodule's new commit too,
	// never what changed inside it) and the untracked files this policy
	// keeps added by name. Without it the capture writes no index anyone
	// keeps: only the paths that differ from HEAD are hashed, HEAD's tree
	// is edited, and submodules whose insides changed are named
	// (ReasonSubmodule).
	InIndex bool
	// IndexName names the private index of a capture in the index
	// (<IndexName>-<pid>-<n>.index in the git dir), so that a copy a
	// killed process left behind is known by its name.
	IndexName string
	// ProtectTracked keeps a tracked protected path at HEAD's version
	// (absent when HEAD has none). Without it only untracked protected
	// paths are left out; a tracked one is taken as any tracked file.
	ProtectTracked bool
	// SkipDependencyDirs leaves out untracked dependency folders
	// (DependencyDirs and nudge.skipDir) even when nothing ignores them.
	SkipDependencyDirs bool
	// TakeNestedRepos takes an untracked folder holding a repository as
	// git add does (its checked-out commit); without it the folder is
	// left out (ReasonNestedRepo).
	TakeNestedRepos bool
	// LimitUntracked refuses a capture of more untracked files than
	// Options.MaxUntracked (TooManyUntrackedError).
	LimitUntracked bool
	// Exclude are top-level paths a capture never looks at nor reports.
	Exclude []string
	// ExtraProtect are protected-path patterns this policy adds to
	// BuiltinProtected and nudge.protect.
	ExtraProtect []string
	// ProtectKey is a git config key whose values are protected-path
	// patterns too, beside nudge.protect ("" for none).
	ProtectKey string
}

// SnapshotPolicy is git nudge snapshot's: the tree is built on HEAD's,
// protected paths keep HEAD's version, dependency folders and nested
// repositories are left out, the untracked files are counted against
// nudge.maxUntracked, and no index is kept.
var SnapshotPolicy = Policy{
	Name:               "snapshot",
	ProtectTracked:     true,
	SkipDependencyDirs: true,
	LimitUntracked:     true,
}

// CheckpointPolicy is git autodev checkpoint's: everything git add -A
// would take (tracked protected files, dependency folders and nested
// repositories included) but .autodev, untracked protected paths (.env.*
// and autodev.protect on top of git nudge's) and untracked files over the
// size limit; made in a copy of the user's index, which the checkpoint
// installs.
var CheckpointPolicy = Policy{
	Name:            "checkpoint",
	InIndex:         true,
	IndexName:       "autodev",
	TakeNestedRepos: true,
	Exclude:         []string{".autodev"},
	// .env's variants (.env.local, .env.production): not in git nudge's
	// built-in list, where a protected path is also one apply never
	// writes and a tracked .env.example is common.
	ExtraProtect: []string{".env.*"},
	ProtectKey:   "autodev.protect",
}

// check refuses a combination the engine does not build: a capture in the
// index takes every tracked change (git add -u), so it cannot keep a
// tracked path at HEAD's version; a capture on HEAD's tree hashes no
// nested repository and has no excludes of its own (its protected paths
// are reported instead).
func (p Policy) check() error {
	switch {
	case p.InIndex && p.ProtectTracked:
		return fmt.Errorf("capture policy %s: a capture in the index takes every tracked change, protected or not", p.Name)
	case p.InIndex && p.IndexName == "":
		return fmt.Errorf("capture policy %s: a capture in the index needs a name for its index", p.Name)
	case !p.InIndex && (p.TakeNestedRepos || len(p.Exclude) > 0):
		return fmt.Errorf("capture policy %s: a capture on HEAD's tree leaves nested repositories out and excludes nothing", p.Name)
	}
	return nil
}

// Excluded reports whether path (from the top of the work tree, "/"
// separated) is one of p.Exclude or under one.
func (p Policy) Excluded(path string) bool {
	for _, e := range p.Exclude {
		if path == e || strings.HasPrefix(path, e+"/") {
			return true
		}
	}
	return false
}

// LoadOptions is LoadOptions with p's own protected paths added after
// nudge.protect's: ExtraProtect, then the values of ProtectKey (read in
// the same git call as nudge's settings).
func (p Policy) LoadOptions(ctx context.Context, repo *git.Repo) (Options, error) {
	return loadOptions(ctx, repo, p.ExtraProtect, p.ProtectKey)
}
