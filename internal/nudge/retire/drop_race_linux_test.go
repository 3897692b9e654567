//go:build linux

package retire_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/retire"
	"github.com/nudgethis/git-nudge/internal/nudge/runner"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// TestDropSymlinkSwapRace (docs/SECURITY.md): while drop removes a
// task's worktree, a process the task left swaps an ignored folder full
// of files for a symlink to a folder outside, over and over. Removal
// through directory handles unlinks the link and never follows it:
// nothing outside is deleted, whatever the timing. (git worktree remove,
// used before, followed it and deleted files there.) Bounded under -short.
func TestDropSymlinkSwapRace(t *testing.T) {
	files, rounds := 30000, 4
	if testing.Short() {
		files, rounds = 3000, 2
	}
	ctx := context.Background()
	top := testutil.Repo(t)
	testutil.Commit(t, top, map[string]string{".gitignore": "node_modules/\n", "a.txt": "a\n"}, "base")
	w, err := nudge.Open(ctx, top, nil)
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	for i := 0; i < files; i++ {
		if err := os.WriteFile(filepath.Join(outside, fmt.Sprintf("f%d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for round := 0; round < rounds; round++ {
		task, err := runner.Start(ctx, w, "", runner.StartOptions{NoSetup: true})
		if err != nil {
			t.Fatal(err)
		}
		dir := *task.Worktree
		v := filepath.Join(dir, "node_modules", "v")
		if err := os.MkdirAll(v, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < files; i++ {
			if err := os.WriteFile(filepath.Join(v, fmt.Sprintf("f%d", i)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var stop atomic.Bool
		var wg sync.WaitGroup
		var swaps atomic.Int64
		wg.Add(1)
		go func() {
			defer wg.Done()
			aside := v + ".real"
			for !stop.Load() {
				if os.Rename(v, aside) != nil {
					continue
				}
				if os.Symlink(outside, v) == nil {
					swaps.Add(1)
					_ = os.Remove(v)
				}
				_ = os.Rename(aside, v)
			}
		}()
		dropErr := retire.Drop(ctx, w, task.ID, true)
		stop.Store(true)
		wg.Wait()
		for i := 0; i < files; i++ {
			if _, err := os.Lstat(filepath.Join(outside, fmt.Sprintf("f%d", i))); err != nil {
				t.Fatalf("round %d: drop deleted a file outside the worktree through the swapped symlink (%d swaps; drop: %v): %v", round, swaps.Load(), dropErr, err)
			}
		}
		if got, err := os.ReadFile(filepath.Join(top, "a.txt")); err != nil || string(got) != "a\n" {
			t.Fatalf("round %d: the workspace's a.txt changed: %q", round, got)
		}
		t.Logf("round %d: %d swaps during drop (drop: %v)", round, swaps.Load(), dropErr)
		if dropErr != nil {
			// Racing renames can leave the folder non-empty at the end;
			// a second drop (nothing racing now) must finish the job.
			if err := retire.Drop(ctx, w, task.ID, true); err != nil {
				t.Fatalf("round %d: drop again: %v", round, err)
			}
		}
		if _, err := os.Lstat(dir); err == nil {
			t.Fatalf("round %d: %s still exists after drop", round, dir)
		}
	}
}
