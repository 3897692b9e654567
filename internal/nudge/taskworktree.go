package nudge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// IncludeFile is the workspace file naming the ignored files a task's
// worktree gets a copy of (gitignore syntax; a convention shared with other
// agent tools).
const IncludeFile = ".worktreeinclude"

// ClaimWorktree, with the workspace lock held, reserves what task id's
// worktree at dir is made from: a pooled worktree when the pool has one
// (no two tasks get the same), or nothing, and returns the step that
// makes the worktree, to be called once the lock is released. That step
// gives t a worktree at dir on its snapshot commit, pooled or added
// afresh, with git-nudge's own index recorded as trusted; the ignored
// files .worktreeinclude names are not copied (CopyIncludes).
func (w *Workspace) ClaimWorktree(ctx context.Context, id, dir string) (checkout func(ctx context.Context, t *Task, out io.Writer) error) {
	claim := w.claimPooled(ctx, id, dir)
	return func(ctx context.Context, t *Task, out io.Writer) error {
		return w.checkout(ctx, t, dir, claim, out)
	}
}

// checkout makes t's worktree at dir on its snapshot commit: from the
// pool when claim holds a worktree that can be proved clean, or added
// afresh; then records the index as git-nudge left it, before anything
// ran there, which is what makes the worktree reusable once the task is
// dropped (pool.go). Without it the worktree is simply never pooled.
func (w *Workspace) checkout(ctx context.Context, t *Task, dir string, claim *poolClaim, out io.Writer) error {
	_ = os.Remove(w.trustedIndex(t.ID))
	if claim == nil || !w.startFromPool(ctx, t, dir, claim, out) {
		if err := w.addWorktree(ctx, dir, t.Snapshot); err != nil {
			return err
		}
	}
	_ = w.trustIndex(ctx, dir, w.trustedIndex(t.ID))
	return nil
}

// addWorktree adds a fresh worktree at dir on commit, removing one left
// there by an earlier attempt, and refreshes its own index (so that the
// first capture does not find every file racily clean).
func (w *Workspace) addWorktree(ctx context.Context, dir, commit string) error {
	if _, err := os.Lstat(dir); err == nil {
		// Left over from an earlier attempt: git's record and files go,
		// through directory handles that never follow a link, and only
		// when no process uses it any more.
		if err := w.discardWorktree(dir); err != nil {
			return fmt.Errorf("%s is in the way of the new worktree and could not be removed: %w", dir, err)
		}
	}
	// A record of a worktree once at dir, left by an interrupted pool
	// command, would make git refuse the path.
	_ = w.Repo.ForgetWorktree(dir)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	if err := w.Repo.AddWorktree(ctx, dir, commit); err != nil {
		return fmt.Errorf("adding the worktree: %w", err)
	}
	admin, err := w.adminOf(dir)
	if err != nil {
		return nil // not pooled, not refreshed: the capture refreshes
	}
	if err := w.Repo.WorktreeRepo(dir, admin).RefreshIndex(ctx); err != nil {
		return fmt.Errorf("refreshing the new worktree's index: %w", err)
	}
	return nil
}

// CopyIncludes copies into dir the workspace's ignored files that
// .worktreeinclude matches (only ignored ones: tracked and untracked source
// is in the snapshot already).
func (w *Workspace) CopyIncludes(ctx context.Context, dir string) error {
	include := filepath.Join(w.Repo.WorkTree, IncludeFile)
	if st, err := os.Stat(include); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	paths, err := w.Repo.IgnoredIncludes(ctx, include, StateDirName)
	if err != nil {
		return err
	}
	for _, p := range paths {
		if err := copyInto(filepath.Join(w.Repo.WorkTree, filepath.FromSlash(p)), filepath.Join(dir, filepath.FromSlash(p))); err != nil {
			return err
		}
	}
	return nil
}

// copyInto copies one file (a symlink as a symlink), keeping its mode. An
// existing destination is left alone.
func copyInto(src, dst string) error {
	st, err := os.Lstat(src)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	if _, err := os.Lstat(dst); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(src)
		if err != nil {
			return err
		}
		return os.Symlink(target, dst)
	case !st.Mode().IsRegular():
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
