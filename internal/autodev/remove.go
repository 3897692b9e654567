package autodev

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// removeParkedUntracked is the second half of restore's step 4: after the
// reset, remove the files that were untracked before it, were parked in
// the pre-restore commit and that the checkpoint does not have. Nothing
// else is ever removed: not ignored files, not .autodev/, not embedded
// repositories, not files that appeared after the listing. Folders left
// empty by a removal are removed too. Paths go through a go-billy
// filesystem over os.Root (worktree.RootFS), so none can escape the work
// tree, even when a folder is swapped for a symlink while this runs.
func (ws *Workspace) removeParkedUntracked(ctx context.Context, target, parkedCommit string, untracked []string) ([]string, error) {
	if len(untracked) == 0 || parkedCommit == "" {
		return nil, nil
	}
	inTarget, err := ws.filesIn(ctx, target, untracked)
	if err != nil {
		return nil, err
	}
	inParked, err := ws.filesIn(ctx, parkedCommit, untracked)
	if err != nil {
		return nil, err
	}
	wt, err := worktree.OpenRootFS(ws.Repo.WorkTree)
	if err != nil {
		return nil, err
	}
	defer wt.Close()
	var removed []string
	dirs := map[string]bool{}
	for _, p := range untracked {
		if strings.HasSuffix(p, "/") || !inParked[p] || inTarget[p] || isExcluded(p) {
			continue
		}
		ok, err := removeFile(wt, p)
		if err != nil {
			return removed, err
		}
		if ok {
			removed = append(removed, p)
			for d := path.Dir(p); d != "."; d = path.Dir(d) {
				dirs[d] = true
			}
		}
	}
	pruneEmptyDirs(wt, dirs)
	return removed, nil
}

func isExcluded(p string) bool {
	for _, e := range excluded {
		if p == e || strings.HasPrefix(p, e+"/") {
			return true
		}
	}
	return false
}

// removeFile removes the file, symlink or other non-folder at rel, when
// every folder above it is a real folder (no symlink) inside the tree.
// It reports whether something was removed.
func removeFile(wt billy.Filesystem, rel string) (bool, error) {
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		fi, err := wt.Lstat(d)
		if err != nil || !fi.IsDir() {
			// Gone, or replaced by a symlink or file: the parked file is
			// no longer at this path, so there is nothing of it to remove.
			return false, nil
		}
	}
	fi, err := wt.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if fi.IsDir() {
		return false, nil
	}
	// A symlink is removed itself (unlinkat never follows a final link).
	return true, wt.Remove(rel)
}

// pruneEmptyDirs removes the given folders when empty, deepest first.
func pruneEmptyDirs(wt billy.Filesystem, dirs map[string]bool) {
	list := make([]string, 0, len(dirs))
	for d := range dirs {
		list = append(list, d)
	}
	sort.Slice(list, func(i, j int) bool { return strings.Count(list[i], "/") > strings.Count(list[j], "/") })
	for _, d := range list {
		fi, err := wt.Lstat(d)
		if err != nil || !fi.IsDir() {
			continue
		}
		entries, err := wt.ReadDir(d)
		if err == nil && len(entries) == 0 {
			_ = wt.Remove(d)
		}
	}
}
