package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// AddWorktree adds a linked worktree at path with a detached HEAD at
// commit and its files checked out (no hook runs).
func (r *Repo) AddWorktree(ctx context.Context, path, commit string) error {
	_, err := r.git(ctx, "worktree", "add", "--quiet", "--detach", "--", path, commit)
	return err
}

// RemoveWorktree removes the linked worktree at path, its files included,
// and git's record of it (also when the folder is already gone).
func (r *Repo) RemoveWorktree(ctx context.Context, path string) error {
	_, err := r.git(ctx, "worktree", "remove", "--force", "--", path)
	return err
}

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
		b, err := os.ReadFile(filepath.Join(admin, e.Name(), "gitdir"))
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
	for _, rec := range splitZ(out) {
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
	x := command(ctx, cleanEnv(os.Environ()), dir, args)
	var stderr bytes.Buffer
	x.Stderr = &stderr
	out, err := x.Output()
	if err != nil {
		return nil, gitError(args, stderr.String(), err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 3 {
		return nil, fmt.Errorf("git rev-parse in %s: unexpected output %q", dir, out)
	}
	w := &Repo{
		GitDir:       filepath.Clean(lines[0]),
		CommonDir:    filepath.Clean(lines[1]),
		WorkTree:     filepath.Clean(lines[2]),
		ObjectFormat: r.ObjectFormat,
	}
	if !samePath(w.CommonDir, r.CommonDir) || !samePath(w.WorkTree, dir) {
		return nil, fmt.Errorf("%s is not a worktree of the repository at %s", dir, r.CommonDir)
	}
	return w, nil
}

func samePath(a, b string) bool {
	if a == b {
		return true
	}
	ea, err1 := filepath.EvalSymlinks(a)
	eb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ea == eb
}

// IgnoredIncludes lists the untracked files that match the gitignore-style
// patterns in includeFile (a .worktreeinclude) and that git's own ignore
// rules ignore, leaving out everything under the folders in skip.
func (r *Repo) IgnoredIncludes(ctx context.Context, includeFile string, skip ...string) ([]string, error) {
	args := []string{"ls-files", "-z", "--others", "--ignored", "--exclude-from=" + includeFile, "--", "."}
	for _, s := range skip {
		args = append(args, ":(exclude,top,literal)"+s)
	}
	out, err := r.git(ctx, args...)
	if err != nil {
		return nil, err
	}
	candidates := splitZ(out)
	if len(candidates) == 0 {
		return nil, nil
	}
	var in bytes.Buffer
	for _, c := range candidates {
		in.WriteString(c)
		in.WriteByte(0)
	}
	out, err = r.run(ctx, cmd{args: []string{"check-ignore", "-z", "--stdin", "--no-index"}, stdin: &in})
	if err != nil && ExitCode(err) != 1 { // 1: none ignored
		return nil, err
	}
	return splitZ(out), nil
}

// ObjectSizes returns the size of each object id that exists (a missing
// one is left out): ObjectInfos as a map.
func (r *Repo) ObjectSizes(ctx context.Context, ids []string) (map[string]int64, error) {
	infos, err := r.ObjectInfos(ctx, ids)
	if err != nil {
		return nil, err
	}
	sizes := make(map[string]int64, len(ids))
	for i, in := range infos {
		if !in.Missing {
			sizes[ids[i]] = in.Size
		}
	}
	return sizes, nil
}

// DiffFormat is what DiffTreesTo prints.
type DiffFormat int

const (
	DiffPatch DiffFormat = iota
	DiffStat
	DiffNameStatus
	// DiffBinaryPatch is a patch with binary changes in full (--binary), for
	// git apply.
	DiffBinaryPatch
)

// DiffTreesTo writes the difference between the trees of a and b (no
// rename detection, no external diff or textconv) to w in the given
// format, leaving out the paths in exclude.
func (r *Repo) DiffTreesTo(ctx context.Context, w io.Writer, a, b string, format DiffFormat, color bool, exclude []string) error {
	// core.quotePath on, whatever the user set: with it off git prints
	// C1 and bidirectional controls in names raw, and a task chose them.
	args := []string{"-c", "core.quotePath=true", "diff-tree", "-r", "--no-renames", "--no-ext-diff", "--no-textconv"}
	switch format {
	case DiffStat:
		args = append(args, "--stat")
	case DiffNameStatus:
		args = append(args, "--name-status")
	case DiffBinaryPatch:
		args = append(args, "-p", "--binary")
	default:
		args = append(args, "-p")
	}
	if color {
		args = append(args, "--color=always")
	} else {
		args = append(args, "--color=never")
	}
	args = append(args, a, b, "--", ".")
	for _, e := range exclude {
		args = append(args, ":(exclude,top,literal)"+e)
	}
	_, err := r.run(ctx, cmd{args: args, stdout: w})
	return err
}
