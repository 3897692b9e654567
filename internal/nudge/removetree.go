package nudge

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nudgethis/git-nudge/internal/worktree"
)

// removeTaskTree removes a worktree folder git-nudge made (anywhere in
// .nudgethis: worktrees/<id>, a pool entry) with worktree.RemoveTree,
// which works through directory handles and never follows a symlink the
// task left or swaps in while it runs; then it removes git's record of
// that worktree (its administrative folder), and only it.
func (w *Workspace) removeTaskTree(dir string) error {
	rel, err := filepath.Rel(w.Repo.WorkTree, dir)
	rel = filepath.ToSlash(rel)
	if err != nil || !strings.HasPrefix(rel, StateDirName+"/") {
		return fmt.Errorf("refusing to remove %s: git-nudge removes only worktrees it made inside %s", dir, StateDirName)
	}
	if err := worktree.RemoveTree(w.Repo.WorkTree, rel); err != nil {
		return err
	}
	return w.Repo.ForgetWorktree(dir)
}
