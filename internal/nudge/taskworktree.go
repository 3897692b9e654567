package nudge

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// IncludeFile is the workspace file naming the ignored files a task's
// worktree gets a copy of (gitignore syntax; a convention shared with other
// agent tools).
const IncludeFile = ".worktreeinclude"

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
