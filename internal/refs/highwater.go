package refs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/journal"
)

// The high-water mark of a kind is the largest number ever allocated in the
// repository, kept in the shared git dir (so all worktrees see it). Refs
// alone forget a number once its ref is deleted (git nudge drop), and a
// reused id would be confused with the task that had it before (in
// saves.json, logs, a user's notes). Allocation holds a lock next to the
// mark, so the mark only grows.

func (k Kind) markPath(r *git.Repo) string {
	return filepath.Join(r.CommonDir, "nudgethis", "last-"+k.Letter+"-id")
}

// withHighWater runs alloc (which returns the id it created) starting from
// max(next, mark+1), then records the id's number as the new mark.
func (k Kind) withHighWater(ctx context.Context, r *git.Repo, next int, alloc func(next int) (string, error)) (string, error) {
	path := k.markPath(r)
	lock, err := journal.Acquire(ctx, path+".lock", 10*time.Second, "allocating a "+k.Letter+" id")
	if err != nil {
		return "", err
	}
	defer lock.Release()
	mark := 0
	if b, err := os.ReadFile(path); err == nil {
		// A damaged mark only costs the protection it gives; refs still
		// make every allocation create-only.
		mark, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	id, err := alloc(max(next, mark+1))
	if err != nil {
		return "", err
	}
	if n, ok := k.Number(id); ok && n > mark {
		// Replaced atomically but not fsynced: after a power cut the mark
		// may be older, which only loses the protection for ids dropped
		// since; the refs themselves keep every allocation create-only.
		tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
		if err := os.WriteFile(tmp, []byte(strconv.Itoa(n)+"\n"), 0o644); err != nil {
			return "", err
		}
		if err := os.Rename(tmp, path); err != nil {
			os.Remove(tmp)
			return "", err
		}
	}
	return id, nil
}

// WithHighWater is the high-water mark for a caller that creates the
// id's ref itself (git-autodev pins a checkpoint in the same ref
// transaction that moves the branch): alloc is given the first number to
// try, max(next, mark+1), and returns the id it created; the mark then
// records it. Checkpoint ids so stay unused after op undo deleted a
// checkpoint's ref, and after checkpoints.json was lost or rebuilt.
func (k Kind) WithHighWater(ctx context.Context, r *git.Repo, next int, alloc func(next int) (string, error)) (string, error) {
	return k.withHighWater(ctx, r, next, alloc)
}

// HighestUnmarked is Highest while the repository has no high-water mark
// of this kind, and 0 without listing any ref once it has one: every
// allocation starts past the mark, and refs created since a mark that a
// power cut set back only cost create-only retries, never a shared id.
func (k Kind) HighestUnmarked(ctx context.Context, r *git.Repo) (int, error) {
	if _, err := os.Stat(k.markPath(r)); err == nil {
		return 0, nil
	}
	return k.Highest(ctx, r)
}
