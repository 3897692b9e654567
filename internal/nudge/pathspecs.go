package nudge

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Pathspecs turns paths typed in callerDir into git pathspecs from the top
// of the work tree, as git diff reads them: relative to the current
// folder (in a task's worktree, to the same folder of the task), globs
// allowed. One that starts with ":" is passed as it is (git's pathspec
// magic, read from the top). A path outside the work tree is an error.
func (w *Workspace) Pathspecs(callerDir string, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	top := w.Repo.WorkTree
	if w.InTask != "" {
		top = w.WorktreeDir(w.InTask)
	}
	top, prefix, ok := CallerRel(top, callerDir)
	if !ok {
		prefix = "" // from elsewhere (or no folder given): from the top
	}
	specs := make([]string, 0, len(paths))
	for _, p := range paths {
		if strings.HasPrefix(p, ":") {
			specs = append(specs, p)
			continue
		}
		var rel string
		if filepath.IsAbs(p) {
			r, err := filepath.Rel(top, p)
			if err != nil {
				return nil, outsidePathError(p, top)
			}
			rel = r
		} else {
			rel = filepath.Join(prefix, p)
		}
		if rel != "" && !filepath.IsLocal(rel) { // "": an empty path, the top
			return nil, outsidePathError(p, top)
		}
		specs = append(specs, ":(top)"+filepath.ToSlash(rel))
	}
	return specs, nil
}

func outsidePathError(p, top string) error {
	return fmt.Errorf("%s is outside the work tree %s: paths are read from the current folder, as git diff reads them", QuotePath(p), QuotePath(top))
}

// CallerRel is where callerDir is below top ("." at the top itself), both
// with symlinks resolved, and the resolved top; ok is false when
// callerDir is not top or a folder below it.
func CallerRel(top, callerDir string) (realTop, rel string, ok bool) {
	if r, err := filepath.EvalSymlinks(top); err == nil {
		top = r
	}
	if r, err := filepath.EvalSymlinks(callerDir); err == nil {
		callerDir = r
	}
	rel, err := filepath.Rel(top, callerDir)
	return top, rel, err == nil && filepath.IsLocal(rel)
}
