package pool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// TrashDirName is the folder inside .nudgethis where worktrees wait to be
// deleted: a command that removes a worktree moves it there under its
// locks (one rename) and deletes it once every lock is released
// (EmptyTrash), so that no other command waits on a long deletion.
const TrashDirName = "trash"

func (p *Pool) trashDir() string { return filepath.Join(p.Dir, TrashDirName) }

// trashSeq makes trash names unique within one process.
var trashSeq atomic.Int64

// RemoveWorktree removes a worktree folder git-nudge made (anywhere in
// .nudgethis: worktrees/<id>, a pool entry): it moves the folder into
// .nudgethis/trash (one rename, which never follows a symlink the task
// left: os.Root's Rename) and removes git's record of that worktree (its
// administrative folder), and only it. The files themselves are deleted
// by EmptyTrash, after the command's locks are released. Where the move
// is impossible the folder is deleted here, with worktree.RemoveTree,
// which works through directory handles and never follows a symlink.
func (p *Pool) RemoveWorktree(dir string) error {
	rel, err := filepath.Rel(p.Repo.WorkTree, dir)
	rel = filepath.ToSlash(rel)
	if err != nil || !strings.HasPrefix(rel, refs.NudgeDir+"/") || strings.HasPrefix(rel, refs.NudgeDir+"/"+TrashDirName+"/") {
		return fmt.Errorf("refusing to remove %s: git-nudge removes only worktrees it made inside %s", dir, refs.NudgeDir)
	}
	if err := p.moveToTrash(rel); err != nil {
		if err := worktree.RemoveTree(p.Repo.WorkTree, rel); err != nil {
			return err
		}
	}
	return p.Repo.ForgetWorktree(dir)
}

// moveToTrash renames folder rel (slash-separated, below the work tree's
// top) into the trash. Nothing there is not an error.
func (p *Pool) moveToTrash(rel string) error {
	top := p.Repo.WorkTree
	if ok, err := worktree.RealDir(top, path.Dir(rel), false); err != nil || !ok {
		return err
	}
	if _, err := worktree.RealDir(top, refs.NudgeDir+"/"+TrashDirName, true); err != nil {
		return err
	}
	r, err := os.OpenRoot(top)
	if err != nil {
		return err
	}
	defer r.Close()
	if _, err := r.Lstat(filepath.FromSlash(rel)); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	name := fmt.Sprintf("%d-%d-%d-%s", time.Now().UnixNano(), os.Getpid(), trashSeq.Add(1), path.Base(rel))
	if err := r.Rename(filepath.FromSlash(rel), filepath.Join(refs.NudgeDir, TrashDirName, name)); err != nil {
		return err
	}
	faults.Point("trash-moved")
	return nil
}

// EmptyTrash deletes what is in .nudgethis/trash: worktrees this command
// or an interrupted one moved aside. The caller holds no lock of the
// suite. It never waits: when another process is emptying the trash
// already, it returns at once (what it moved there is then deleted by that
// process or by the next command). Each folder is deleted through
// directory handles (worktree.RemoveTree), so a deletion cut short is
// simply resumed.
func (p *Pool) EmptyTrash() error {
	ents, err := os.ReadDir(p.trashDir())
	if err != nil || !hasTrash(ents) {
		return nil
	}
	l, err := journal.Acquire(context.Background(), filepath.Join(p.trashDir(), "lock"), 0, "git-nudge emptying the trash")
	if err != nil {
		return nil // another process is at it
	}
	defer l.Release()
	pausePoint("trash-empty")
	var errs []error
	for {
		ents, err := os.ReadDir(p.trashDir())
		if err != nil {
			return err
		}
		if !hasTrash(ents) {
			break
		}
		n := len(errs)
		for _, e := range ents {
			if e.Name() == "lock" {
				continue
			}
			if err := worktree.RemoveTree(p.Repo.WorkTree, refs.NudgeDir+"/"+TrashDirName+"/"+e.Name()); err != nil {
				errs = append(errs, err)
			}
		}
		if len(errs) > n {
			break // what stays is tried again by the next command
		}
	}
	return errors.Join(errs...)
}

func hasTrash(ents []os.DirEntry) bool {
	for _, e := range ents {
		if e.Name() != "lock" {
			return true
		}
	}
	return false
}
