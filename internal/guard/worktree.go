package guard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/journal"
)

// WorktreeConfig finds a config.worktree in the git admin folder of the
// task worktree at worktree ("": none). It would apply to the git
// commands git nudge runs there to capture the result (a filter driver,
// for one), and nothing a task needs: it is reported as added, so that it
// is kept aside and removed. The one exception is what git worktree add
// itself writes there in a sparse checkout (core.sparseCheckout and
// core.sparseCheckoutCone, which run nothing): that is the worktree as
// git made it.
func (g *Guard) WorktreeConfig(ctx context.Context, worktree string) []Change {
	if worktree == "" {
		return nil
	}
	_, name := g.AdminDir(worktree)
	if name == "" {
		return nil
	}
	if c := g.adminConfigChange(ctx, name); c != nil {
		return []Change{*c}
	}
	return nil
}

// AdminDir is the git admin folder (worktrees/<name> of the common
// folder) whose gitdir file names the worktree at worktree, and its name;
// "" when none does. It is found from the common folder, never from the
// worktree's .git file, which a task can rewrite.
func (g *Guard) AdminDir(worktree string) (admin, name string) {
	want := filepath.Join(worktree, ".git")
	if real, err := filepath.EvalSymlinks(worktree); err == nil {
		want = filepath.Join(real, ".git")
	}
	ents, err := os.ReadDir(filepath.Join(g.Repo.CommonDir, "worktrees"))
	if err != nil {
		return "", ""
	}
	for _, e := range ents {
		admin := filepath.Join(g.Repo.CommonDir, "worktrees", e.Name())
		b, err := journal.ReadRegular(filepath.Join(admin, "gitdir"))
		if err != nil {
			continue
		}
		got := filepath.Clean(strings.TrimSpace(string(b)))
		if real, err := filepath.EvalSymlinks(filepath.Dir(got)); err == nil {
			got = filepath.Join(real, ".git")
		}
		if got == want {
			return admin, e.Name()
		}
	}
	return "", ""
}

// adminConfigChange is the config.worktree in the git admin folder
// worktrees/<name>, reported as added (nil when there is none, or when it
// holds only the sparse-checkout keys git worktree add writes there).
func (g *Guard) adminConfigChange(ctx context.Context, name string) *Change {
	rel := "worktrees/" + name + "/config.worktree"
	abs := filepath.Join(g.Repo.CommonDir, filepath.FromSlash(rel))
	st, err := os.Lstat(abs)
	if err != nil {
		return nil
	}
	f := File{Path: rel, Mode: git.ModeFile}
	if st.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(abs)
		f.Mode, f.data = git.ModeSymlink, []byte(target)
	} else if st.Mode().IsRegular() && st.Size() <= git.MaxFileSize {
		f.data, _ = journal.ReadRegular(abs)
	} else {
		f.Mode, f.data = "special", []byte(st.Mode().String())
	}
	if f.Mode == git.ModeFile && OnlySparseKeys(ctx, g.Repo, abs) {
		return nil
	}
	f.Blob = g.Repo.BlobID(f.data)
	return &Change{Path: rel, New: &f}
}

// CheckWorktree checks, before git nudge runs any git command in the
// worktree wr of task id (opened from the task's worktree folder), that its git
// folder is the worktree's own admin folder (worktrees/<name> of the
// common folder, naming this worktree back), and sets aside a
// config.worktree found there: with extensions.worktreeConfig on, git
// reads it as configuration in that worktree, so a filter driver a task
// wrote there would run as the user (outside any sandbox) in capture,
// drop or validation. The guard puts it back at the end of a run; this
// holds also when the run was killed (a sandboxed command can kill its
// git-nudge) and for worktrees handed out by git nudge start.
func (g *Guard) CheckWorktree(ctx context.Context, id string, wr *git.Repo) error {
	admin := filepath.Join(g.Repo.CommonDir, "worktrees")
	rel, err := filepath.Rel(admin, wr.GitDir)
	own := err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !strings.ContainsRune(rel, filepath.Separator)
	if own {
		b, err := journal.ReadRegular(filepath.Join(wr.GitDir, "gitdir"))
		own = err == nil && SamePathOnDisk(filepath.Dir(filepath.Clean(strings.TrimSpace(string(b)))), wr.WorkTree)
	}
	if !own {
		return fmt.Errorf("the worktree of %s uses %s as its git folder, not its own folder in %s (its .git file was rewritten); no git command was run there. git nudge drop --force %s removes it", id, wr.GitDir, admin, id)
	}
	c := g.adminConfigChange(ctx, rel)
	if c == nil {
		return nil
	}
	qdir, problems := g.PutBack(ctx, []Change{*c})
	if len(problems) > 0 {
		return fmt.Errorf("the worktree of %s has a config.worktree in its git folder (%s), which git would read as configuration there, and it could not be set aside: %s", id, g.Display(c.Path), strings.Join(problems, "; "))
	}
	if warn := g.Warn; warn != nil {
		fmt.Fprintf(warn, "git nudge: removed %s, which git would read as configuration in the worktree of %s (a task has no use for it); what was found is kept in %s\n", g.Display(c.Path), id, qdir)
	}
	return nil
}

// PrivateGitDir fills dir, a fresh folder of .nudgethis (which a
// sandboxed task cannot write), with the git folder the capture's git
// commands use for the task worktree wr instead of the worktree's own: a
// copy of its HEAD and index, a commondir naming the repository, and its
// config.worktree only when that holds nothing but the sparse-checkout
// keys (checked on the copy). The worktree's own folder stays writable by
// the task, and a process it left running could rewrite config.worktree
// (a filter driver) between any check and the git commands that read it;
// the copy cannot be. The caller removes dir, also on an error.
func (g *Guard) PrivateGitDir(ctx context.Context, dir string, wr *git.Repo) error {
	root, err := os.OpenRoot(wr.GitDir)
	if err != nil {
		return err
	}
	defer root.Close()
	head, err := ReadPlain(root, "HEAD", 4096)
	if err != nil {
		return fmt.Errorf("the HEAD of the worktree %s: %w", wr.WorkTree, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "HEAD"), head, 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "commondir"), []byte(g.Repo.CommonDir+"\n"), 0o600); err != nil {
		return err
	}
	if err := copyPlain(root, "index", filepath.Join(dir, "index")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("the index of the worktree %s: %w", wr.WorkTree, err)
	}
	cw := filepath.Join(dir, "config.worktree")
	if err := copyPlain(root, "config.worktree", cw); err == nil && !OnlySparseKeys(ctx, g.Repo, cw) {
		if err := os.Remove(cw); err != nil {
			return err
		}
	}
	return nil
}

// copyPlain copies name in root, a regular file (see OpenPlain), to dst.
func copyPlain(root *os.Root, name, dst string) error {
	f, st, err := OpenPlain(root, name)
	if err != nil {
		return err
	}
	defer f.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, f); err != nil {
		out.Close()
		return err
	}
	// The copy keeps the index's mtime: git compares it with the files'
	// to tell racily clean entries.
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chtimes(dst, st.ModTime(), st.ModTime())
}

// SamePathOnDisk reports whether a and b name the same folder or file
// once symlinks are resolved (false when either cannot be resolved).
func SamePathOnDisk(a, b string) bool {
	ea, err1 := filepath.EvalSymlinks(a)
	eb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ea == eb
}
