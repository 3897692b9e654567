package git

// This file holds linked worktrees: adding, listing, opening and removing them.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nudgethis/git-nudge/internal/gitexec"
	"github.com/nudgethis/git-nudge/internal/journal"
)

// The git side of pooled task worktrees (internal/pool): a
// worktree's own index refreshed, a worktree brought to a commit from a
// trusted index, and the checks that prove it holds nothing else.

// WorktreeRepo is the repository as seen from the linked worktree at dir
// whose administrative folder is admin (.git/worktrees/<name>), both given
// by the caller rather than read from the worktree's .git file (which a
// task may have rewritten).
func (r *Repo) WorktreeRepo(dir, admin string) *Repo {
	w := newRepo(admin, r.CommonDir, dir, r.ObjectFormat)
	w.Tx = r.Tx
	return w
}

// ResetWorktreeTo makes r's index (a worktree's own) the tree of commit
// and its work tree match it: every entry whose file differs from the
// index's stat data is written afresh, entries commit lacks are removed
// (git read-tree --reset -u). Untracked files are left alone: the caller
// removed them first.
func (r *Repo) ResetWorktreeTo(ctx context.Context, commit string) error {
	_, err := r.git(ctx, append(append([]string{}, statArgs...), "read-tree", "--reset", "-u", commit)...)
	return err
}

// NothingUntracked reports whether r's work tree (a linked worktree)
// holds no entry its index lacks: no untracked or ignored file, symlink,
// nested repository or empty folder (git ls-files --others --directory,
// no exclude rules, so ignored entries count). It lists every folder but
// reads no tracked file's stat data: that is read-tree's part.
func (r *Repo) NothingUntracked(ctx context.Context) (bool, error) {
	out, err := r.git(ctx, append(append([]string{}, statArgs...), "ls-files", "--others", "--directory", "-z")...)
	if err != nil {
		return false, err
	}
	return len(out) == 0, nil
}

// AddWorktree adds a linked worktree at path with a detached HEAD at
// commit and its files checked out (no hook runs).
func (r *Repo) AddWorktree(ctx context.Context, path, commit string) error {
	_, err := r.git(ctx, "worktree", "add", "--quiet", "--detach", "--", path, commit)
	return err
}

// (There is no RemoveWorktree: git worktree remove follows a folder a
// task swaps for a symlink while it recurses. Task worktrees are removed
// by worktree.RemoveTree, then ForgetWorktree.)

// ForgetWorktree removes the administrative folder (.git/worktrees/<name>)
// of the linked worktree whose folder was path, once that folder is gone:
// what git worktree prune does, but for this worktree only (prune would
// also forget the user's worktrees on a drive that is not mounted now).
func (r *Repo) ForgetWorktree(path string) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s still exists", path)
	}
	admin := filepath.Join(r.CommonDir, "worktrees")
	ents, err := os.ReadDir(admin)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	want := filepath.Join(filepath.Clean(path), ".git")
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		b, err := journal.ReadRegular(filepath.Join(admin, e.Name(), "gitdir"))
		if err != nil || filepath.Clean(strings.TrimRight(string(b), "\r\n")) != want {
			continue
		}
		if err := os.RemoveAll(filepath.Join(admin, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// Worktrees lists the paths of the repository's worktrees, main one first.
func (r *Repo) Worktrees(ctx context.Context) ([]string, error) {
	out, err := r.git(ctx, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, rec := range gitexec.SplitZ(out) {
		if p, ok := strings.CutPrefix(rec, "worktree "); ok {
			paths = append(paths, filepath.Clean(p))
		}
	}
	return paths, nil
}

// OpenWorktree returns the repository as seen from the linked worktree at
// dir (its own git dir, index and HEAD), ignoring any GIT_DIR or
// GIT_WORK_TREE the process inherited. dir must be a worktree of r.
func (r *Repo) OpenWorktree(ctx context.Context, dir string) (*Repo, error) {
	args := []string{"rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir", "--show-toplevel"}
	// Not r.env(): the worktree's own git dir is what is being asked for.
	x := gitexec.Command(ctx, gitexec.CleanEnv(os.Environ()), dir, args)
	var stderr bytes.Buffer
	x.Stderr = &stderr
	out, err := x.Output()
	if err != nil {
		return nil, gitexec.GitError(args, stderr.String(), err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 3 {
		return nil, fmt.Errorf("git rev-parse in %s: unexpected output %q", dir, out)
	}
	w := newRepo(filepath.Clean(lines[0]), filepath.Clean(lines[1]), filepath.Clean(lines[2]), r.ObjectFormat)
	w.Tx = r.Tx
	if !samePath(w.CommonDir, r.CommonDir) || !samePath(w.WorkTree, dir) {
		return nil, fmt.Errorf("%s is not a worktree of the repository at %s", dir, r.CommonDir)
	}
	return w, nil
}
