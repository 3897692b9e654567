package worktree

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// RemoveTree removes the folder rel (a slash-separated path below top,
// e.g. ".nudgethis/worktrees/t1") and everything in it, through
// directory handles that never follow a symlink: the folders leading to
// it must be real folders (not links) below top, and the removal itself
// is os.Root's RemoveAll, which opens each folder it descends into
// relative to its parent's handle with O_NOFOLLOW and unlinks entries
// relative to it (openat/unlinkat). A folder a task swaps for a symlink
// while this runs is unlinked as a link, never followed: nothing outside
// rel can be removed. (git worktree remove and any path-based recursive
// remover resolve every path again and follow such a link.)
func RemoveTree(top, rel string) error {
	rel = path.Clean(filepath.ToSlash(rel))
	if rel == "." || path.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
		return fmt.Errorf("removing %s: not a folder below %s", rel, top)
	}
	if parent := path.Dir(rel); parent != "." {
		ok, err := RealDir(top, parent, false)
		if err != nil {
			return fmt.Errorf("removing %s: %w", rel, err)
		}
		if !ok {
			return nil // its parent is not there: nothing to remove
		}
	}
	r, err := os.OpenRoot(top)
	if err != nil {
		return err
	}
	defer r.Close()
	return r.RemoveAll(filepath.FromSlash(rel))
}
