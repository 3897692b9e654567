//go:build linux

package worktree

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// exchange swaps the two names a and b atomically (renameat2 with
// RENAME_EXCHANGE), so that the racing path always exists: one moment a
// folder, the next a symlink.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}

// TestSymlinkSwapRace writes, replaces and removes files in a folder of the
// work tree while another goroutine keeps swapping that folder for a
// symlink to a folder outside the work tree. Whatever the interleaving,
// nothing may ever be created, written, renamed or removed outside: the
// outside folder stays empty and its modification time never moves.
func TestSymlinkSwapRace(t *testing.T) {
	base := t.TempDir()
	top := filepath.Join(base, "wt")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(top, "d", "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(top, "d", "f"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(top, "swap")); err != nil {
		t.Fatal(err)
	}
	before, err := os.Lstat(outside)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Open(top)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()

	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	swaps := 0
	go func() {
		defer wg.Done()
		for !stop.Load() {
			if err := exchange(filepath.Join(top, "d"), filepath.Join(top, "swap")); err != nil {
				t.Error(err)
				return
			}
			swaps++
		}
	}()
	loops := 3000
	if testing.Short() {
		loops = 500
	}
	wrote := 0
	for i := 0; i < loops; i++ {
		if tr.WriteFile("d/f", strings.NewReader("task content"), i%2 == 0) == nil {
			wrote++
		}
		_ = tr.WriteFile("d/sub/new", strings.NewReader("task content"), false)
		_, _ = tr.Remove("d/sub/new")
		_ = tr.WriteFile("d/deeper/x", strings.NewReader("task content"), false)
		_, _ = tr.Remove("d/deeper/x")
		_ = tr.SyncDir("d")
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d loops, %d swaps, %d writes of d/f went through", loops, swaps, wrote)

	ents, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) > 0 {
		t.Errorf("files were written outside the work tree through the swapped symlink: %v", names)
	}
	after, err := os.Lstat(outside)
	if err != nil {
		t.Fatal(err)
	}
	if !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the outside folder was changed (modification time %v, was %v): something was created or removed there", after.ModTime(), before.ModTime())
	}
}
