package pool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/proc"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// Claim is what a task's worktree is made from, reserved under the
// workspace lock: a parked worktree, already moved to the task's
// worktree folder, or nothing (a fresh worktree is added).
type Claim struct {
	p      *Pool
	id     string
	dir    string
	pooled *poolClaim // nil: a fresh worktree
}

// Claim, with the workspace lock held, reserves what task id's worktree
// at dir is made from: a pooled worktree when the pool has one (no two
// tasks get the same), or nothing. Its Checkout makes the worktree, once
// the lock is released.
func (p *Pool) Claim(ctx context.Context, id, dir string) *Claim {
	return &Claim{p: p, id: id, dir: dir, pooled: p.claimPooled(ctx, id, dir)}
}

// Checkout gives the task a worktree at the claimed folder on commit (its
// snapshot): from the pool when the claim holds a worktree that can be
// proved clean, or added afresh; then records the index as git-nudge left
// it, before anything ran there, which is what makes the worktree
// reusable once the task is done with it. Without that record the
// worktree is simply never pooled. The ignored files .worktreeinclude
// names are not copied here. out, when set, is told when a pooled
// worktree could not be used.
func (c *Claim) Checkout(ctx context.Context, commit string, out io.Writer) error {
	p := c.p
	_ = os.Remove(p.TrustedIndex(c.id))
	if c.pooled == nil || !p.startFromPool(ctx, commit, c.dir, c.pooled, out) {
		if err := p.addWorktree(ctx, c.dir, commit); err != nil {
			return err
		}
	}
	_ = p.trustIndex(ctx, c.dir, p.TrustedIndex(c.id))
	return nil
}

// addWorktree adds a fresh worktree at dir on commit, removing one left
// there by an earlier attempt, and refreshes its own index (so that the
// first capture does not find every file racily clean).
func (p *Pool) addWorktree(ctx context.Context, dir, commit string) error {
	if _, err := os.Lstat(dir); err == nil {
		// Left over from an earlier attempt: git's record and files go,
		// through directory handles that never follow a link, and only
		// when no process uses it any more.
		if err := p.DiscardWorktree(dir); err != nil {
			return fmt.Errorf("%s is in the way of the new worktree and could not be removed: %w", dir, err)
		}
	}
	// A record of a worktree once at dir, left by an interrupted pool
	// command, would make git refuse the path.
	_ = p.Repo.ForgetWorktree(dir)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	if err := p.Repo.AddWorktree(ctx, dir, commit); err != nil {
		return fmt.Errorf("adding the worktree: %w", err)
	}
	admin, err := p.AdminOf(dir)
	if err != nil {
		return nil // not pooled, not refreshed: the capture refreshes
	}
	if err := p.Repo.WorktreeRepo(dir, admin).RefreshIndex(ctx); err != nil {
		return fmt.Errorf("refreshing the new worktree's index: %w", err)
	}
	return nil
}

// poolClaim is a pool entry taken for a task: its worktree already moved
// to the task's worktree folder, not yet reset.
type poolClaim struct {
	admin string // the worktree's administrative folder
	index string // its trusted index
}

// claimPooled takes a parked worktree for task id, moving it to dir; nil
// when the pool is off or empty. The caller holds the workspace lock, so
// that no two tasks take the same one.
func (p *Pool) claimPooled(ctx context.Context, id, dir string) *poolClaim {
	if _, err := os.Lstat(dir); err == nil {
		return nil // left by an earlier attempt: Checkout removes it
	}
	bound, err := p.Bound(ctx)
	if err != nil || bound == 0 {
		return nil
	}
	// The pool folder itself must be a plain folder inside .nudgethis.
	if ok, err := worktree.RealDir(p.Repo.WorkTree, refs.NudgeDir+"/"+DirName, false); err != nil || !ok {
		return nil
	}
	entries, err := p.Entries()
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if proc.InDir(e.Path) {
			continue // a process still uses it: never reused (nor removed)
		}
		admin, err := p.AdminOf(e.Path)
		if err != nil {
			_ = p.discardEntry(e)
			continue
		}
		c := &poolClaim{admin: admin, index: p.ReuseIndex(id)}
		if err := os.MkdirAll(filepath.Dir(c.index), 0o755); err != nil {
			return nil
		}
		if err := os.Rename(e.Path+".index", c.index); err != nil {
			continue
		}
		_ = os.Remove(e.Path + ".bytes")
		// git's record first: interrupted here, the worktree is either
		// still in the pool (an entry without its index: pool clear
		// removes it) or a record of a missing folder at dir, which
		// drop and the next start forget.
		err = os.MkdirAll(filepath.Dir(dir), 0o755)
		if err == nil {
			err = writeNew(filepath.Join(admin, "gitdir"), []byte(gitdirLine(dir)))
		}
		if err != nil {
			_ = os.Remove(c.index)
			_ = p.DiscardWorktree(e.Path)
			return nil
		}
		if err := os.Rename(e.Path, dir); err != nil {
			_ = os.Remove(c.index)
			_ = p.DiscardWorktree(e.Path)
			continue
		}
		faults.Point("pool-claim")
		return c
	}
	return nil
}

// resetPooled brings the claimed worktree at dir to commit, as git
// worktree add --detach would have made it. Any error means it could not
// be proved clean: the caller discards it.
func (p *Pool) resetPooled(ctx context.Context, dir string, c *poolClaim, commit string) error {
	defer os.Remove(c.index)
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	// The administrative folder: only what a fresh one holds, written
	// afresh (the task may have added config.worktree, refs, hooks...).
	ents, err := os.ReadDir(c.admin)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(c.admin, e.Name())); err != nil {
			return err
		}
	}
	for name, data := range map[string]string{
		"commondir": "../..\n", "gitdir": gitdirLine(dir), "HEAD": commit + "\n", "ORIG_HEAD": commit + "\n",
	} {
		if err := writeNew(filepath.Join(c.admin, name), []byte(data)); err != nil {
			return err
		}
	}
	kinds, plain, err := p.Repo.IndexKinds(ctx, c.index)
	if err != nil {
		return err
	}
	if !plain {
		return errors.New("its trusted index is not a fresh worktree's")
	}
	// The trusted index becomes the worktree's (moved: it is not needed
	// after this; copied where the git folder is on another filesystem).
	if err := os.Rename(c.index, filepath.Join(c.admin, "index")); err != nil {
		if err := copyKeepingTime(c.index, filepath.Join(c.admin, "index")); err != nil {
			return err
		}
	}
	admin := c.admin
	if real, err := filepath.EvalSymlinks(admin); err == nil {
		admin = real
	}
	if err := writeNew(filepath.Join(dir, ".git"), []byte("gitdir: "+admin+"\n")); err != nil {
		return err
	}
	if err := pruneUntracked(dir, kinds); err != nil {
		return fmt.Errorf("removing what the last task left: %w", err)
	}
	faults.Point("pool-reset")
	wt := p.Repo.WorktreeRepo(dir, c.admin)
	// read-tree compares every entry's file with the trusted stat data
	// (ctime and inode included), writes afresh each one that differs or
	// is missing and fails if it cannot: the tracked files are proved by
	// it. It keeps the stat data of every entry it finds unchanged and
	// records that of every file it writes, so no refresh follows.
	if err := wt.ResetWorktreeTo(ctx, commit); err != nil {
		return err
	}
	// What is not tracked: git lists every folder once more, after the
	// reset, and must find nothing the index lacks.
	clean, err := wt.NothingUntracked(ctx)
	if err != nil {
		return err
	}
	if !clean {
		return errors.New("git still finds files the snapshot does not hold after the reset")
	}
	return nil
}

// pruneUntracked removes from the worktree at dir everything that the
// index (kinds: path -> mode) does not hold as what it is on disk: an
// untracked or ignored file or folder (a nested repository included), a
// symlink or folder where the index has a file, a symlink where it has a
// folder. Nothing is followed: it works through an os.Root at dir. Kept
// folders get the mode git would give a new one; a submodule's folder is
// emptied, as a fresh worktree has it.
func pruneUntracked(dir string, kinds map[string]string) error {
	dirs := map[string]bool{"": true}
	for p := range kinds {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if dirs[d] {
				break
			}
			dirs[d] = true
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	top, err := root.Open(".")
	if err != nil {
		return err
	}
	defer top.Close()
	dirMode := 0o777 &^ proc.Umask()
	// Each folder is opened relative to its parent's handle (openDirAt,
	// never through a symlink), its mode read and set through its own
	// handle; only removals go through root.
	var walk func(f *os.File, rel string, gitlink bool) error
	walk = func(f *os.File, rel string, gitlink bool) error {
		st, err := f.Stat()
		if err != nil {
			return err
		}
		if !st.IsDir() {
			return fmt.Errorf("%s is not a folder", rel)
		}
		if st.Mode().Perm() != dirMode || st.Mode()&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0 {
			if err := f.Chmod(dirMode); err != nil {
				return err
			}
		}
		ents, err := worktree.ReadDirTypes(f)
		if err != nil {
			return err
		}
		for _, e := range ents {
			p := e.Name()
			if rel != "" {
				p = rel + "/" + e.Name()
			}
			if rel == "" && e.Name() == ".git" {
				continue // rewritten by the caller
			}
			keep, sub, link := false, false, false
			if !gitlink {
				switch mode := kinds[p]; {
				case mode == git.ModeSymlink:
					keep = e.Type() == fs.ModeSymlink
				case mode == "160000":
					keep, sub, link = e.Type() == fs.ModeDir, true, true
				case mode != "":
					keep = e.Type().IsRegular()
				case dirs[p]:
					keep, sub = e.Type() == fs.ModeDir, true
				}
			}
			if !keep {
				if err := root.RemoveAll(p); err != nil {
					return err
				}
				continue
			}
			if sub {
				c, err := openDirAt(f, e.Name())
				if err != nil {
					return err
				}
				err = walk(c, p, link)
				c.Close()
				if err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(top, "", false)
}

// startFromPool prepares the worktree at dir, on commit, from the claimed
// pool entry c; on any failure the worktree is discarded and the caller
// makes a fresh one. out, when set, is told why.
func (p *Pool) startFromPool(ctx context.Context, commit, dir string, c *poolClaim, out io.Writer) bool {
	err := p.resetPooled(ctx, dir, c, commit)
	if err == nil {
		return true
	}
	if ctx.Err() == nil && out != nil {
		fmt.Fprintf(out, "git nudge: the pooled worktree could not be proved clean (%v); making a fresh one\n", err)
	}
	_ = p.DiscardWorktree(dir)
	return false
}
