package autodev

import (
	"context"
	"sort"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// Restore looks at the whole work tree once, in the capture that parks it
// (git add -A into a private index). What else it needs to know about the
// work tree is read from that capture's trees, and from the work tree only
// at the paths the reset changes: so a restore of a 100,000-file tree
// walks it once, not four times.

// ignoredInTheWay lists the ignored files that git reset --hard to target
// would overwrite or delete (reset treats ignored files as expendable):
// files at a path target has a file at, inside a folder that is such a
// path, or where target needs a folder. c is the work tree captured, so
// only paths target has and the capture lacks can hold one: those are
// looked at, and git is asked which ignored files are there.
func (ws *Workspace) ignoredInTheWay(ctx context.Context, c *capture, target string) ([]string, error) {
	changes, err := ws.Repo.DiffTrees(ctx, c.Tree, target)
	if err != nil {
		return nil, err
	}
	var at []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			at = append(at, p)
		}
	}
	var wt *worktree.Tree
	for _, ch := range changes {
		if ch.Status != "A" || isExcluded(ch.Path) {
			continue
		}
		if wt == nil {
			if wt, err = worktree.Open(ws.Repo.WorkTree); err != nil {
				return nil, err
			}
			defer wt.Close()
		}
		e, err := wt.Lstat(ch.Path)
		if err != nil {
			// A path the work-tree layer will not look at: ask git
			// about the whole tree instead.
			return ws.Repo.IgnoredInTheWay(ctx, target, excluded...)
		}
		switch {
		case e.Blocker != "":
			add(e.Blocker) // a file or symlink where target needs a folder
		case e.Kind != worktree.Absent:
			add(ch.Path) // what is there now, and all inside it
		}
	}
	if len(at) == 0 {
		return nil, nil
	}
	if len(at) > git.IgnoredAtLimit {
		return ws.Repo.IgnoredInTheWay(ctx, target, excluded...)
	}
	ignored, err := ws.Repo.IgnoredAt(ctx, at)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range ignored {
		if !isExcluded(p) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

// parkedUntracked lists the untracked files of the work tree captured as
// c (and so parked with it): the files of the captured tree that the
// user's index lacks, embedded repositories left out. Without a tree of
// the index (no index file, or unmerged entries) git lists them.
func (ws *Workspace) parkedUntracked(ctx context.Context, c *capture) ([]string, error) {
	if c.IndexTree == "" {
		return ws.Repo.UntrackedFiles(ctx, excluded...)
	}
	if c.IndexTree == c.Tree {
		return nil, nil
	}
	changes, err := ws.Repo.DiffTrees(ctx, c.IndexTree, c.Tree)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, ch := range changes {
		if ch.Status == "A" && ch.NewMode != git.ModeGitlink && !isExcluded(ch.Path) {
			out = append(out, ch.Path)
		}
	}
	return out, nil
}

// filesIn returns which of paths commit's tree has as a file, symlink or
// submodule (not as a folder), reading only those paths of the tree.
func (ws *Workspace) filesIn(ctx context.Context, commit string, paths []string) (map[string]bool, error) {
	entries, err := ws.Repo.TreeEntries(ctx, commit, paths)
	if err != nil {
		return nil, err
	}
	in := make(map[string]bool, len(entries))
	for _, e := range entries {
		if e.Mode != "" && e.Mode != git.ModeTree && e.Mode != "0"+git.ModeTree {
			in[e.Path] = true
		}
	}
	return in, nil
}
