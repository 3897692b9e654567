package snapshot

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/nudgethis/git-nudge/internal/git"
)

// captureInIndex is the capture in a copy of the user's index (Policy
// InIndex): git add -A in that copy, in two steps so that the untracked
// files the policy leaves out are never hashed. The untracked files are
// listed against the copy (the one walk of the work tree's folders) and
// sorted by the collector, git add -u takes the tracked changes and the
// untracked files kept are added by name; the copy's tree is the
// captured tree. The copy is returned in Result.Index, with the tree the
// user's index had (Result.IndexTree). The options are loaded only when
// there are untracked files to sort.
func captureInIndex(ctx context.Context, repo *git.Repo, req Request, loadOpts func() (Options, error)) (res Result, err error) {
	head := req.Head
	res.Head = head
	ix, err := repo.CopyIndex(req.Policy.IndexName)
	if err != nil {
		return res, fmt.Errorf("copying the index: %w", err)
	}
	res.Index = ix
	defer func() {
		if err != nil {
			res.Discard()
		}
	}()
	if _, err := os.Stat(ix.Path); errors.Is(err, os.ErrNotExist) && head.Commit != "" {
		// No index at all: start from HEAD so tracked files that are
		// now ignored stay tracked, as with the user's own index.
		if err := repo.ReadTree(ctx, ix, head.Commit); err != nil {
			return res, err
		}
	} else if err == nil {
		// The staged state, before the work tree is folded in. An index
		// with unmerged entries has no tree. A cache-tree that covers
		// the whole index (the usual case after a commit or a
		// checkpoint) names it without a git process.
		if t := repo.CachedTree(ix); t != "" {
			res.IndexTree = t
		} else if t, err := repo.WriteTree(ctx, ix); err == nil {
			res.IndexTree = t
		}
	}
	untracked, err := repo.UntrackedIn(ctx, ix, req.Policy.Exclude...)
	if err != nil {
		return res, err
	}
	var keep []string
	if len(untracked) > 0 {
		opts, err := loadOpts()
		if err != nil {
			return res, err
		}
		c := newCollector(repo, req.Policy, opts)
		for _, p := range untracked {
			c.untracked(p)
		}
		if err := c.checkLimit(""); err != nil {
			return res, err
		}
		keep, res.Skipped, res.Untracked = c.files, c.sortedSkipped(), len(c.files)
	}
	if err := repo.AddSplit(ctx, ix, keep, req.Policy.Exclude...); err != nil {
		return res, err
	}
	if res.Tree, err = repo.WriteTree(ctx, ix); err != nil {
		return res, err
	}
	if head.Commit == "" {
		res.Clean = res.Tree == repo.EmptyTree()
	} else {
		res.Clean = res.Tree == req.HeadTree
	}
	return res, nil
}
