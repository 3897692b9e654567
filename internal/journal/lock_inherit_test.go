//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package journal_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// waitUnheld waits (up to 30 s) for nobody to hold the lock at path.
func waitUnheld(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		held, err := journal.Held(path)
		if err != nil {
			t.Fatal(err)
		}
		if !held {
			return
		}
	}
	t.Fatalf("%s is still held", path)
}

// The holder of an inheritable lock is killed with SIGKILL: the child it
// started keeps the lock held until it exits too.
func TestInheritableLockOutlivesKilledHolder(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "run.lock")
	holder := startHelper(t, "inherit", path, "-")
	holder.expect(t, "locked")
	if err := holder.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Reaped without closing the pipes: the child still has its stdin.
	if _, err := holder.cmd.Process.Wait(); err != nil {
		t.Fatal(err)
	}
	if held, err := journal.Held(path); err != nil || !held {
		t.Fatalf("Held after the holder was killed, its child alive = %v, %v; want true", held, err)
	}
	if _, err := journal.Acquire(context.Background(), path, 0, "test"); err == nil {
		t.Fatal("Acquire succeeded while the child holds the lock")
	}
	// The child waits for stdin, which it shares with the killed holder.
	if err := holder.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	waitUnheld(t, path)
}

// Release lets go of the lock for the child that inherited it as well.
func TestInheritableLockReleaseFreesChild(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "run.lock")
	l, err := journal.AcquireInheritable(context.Background(), path, 0, "test")
	if err != nil {
		t.Fatal(err)
	}
	if l.File() == nil {
		t.Fatal("File() is nil")
	}
	c := lingerCommand()
	stdin, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.ExtraFiles = []*os.File{l.File()}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stdin.Close(); _ = c.Wait() }()
	if held, err := journal.Held(path); err != nil || !held {
		t.Fatalf("Held = %v, %v; want true", held, err)
	}
	if pid := journal.HolderPID(path); pid != os.Getpid() {
		t.Errorf("HolderPID = %d, want %d", pid, os.Getpid())
	}
	if _, err := journal.AcquireInheritable(context.Background(), path, 30*time.Millisecond, "second"); err == nil {
		t.Fatal("a second AcquireInheritable succeeded")
	} else if _, ok := err.(*journal.LockedError); !ok {
		t.Fatalf("second AcquireInheritable: %v, want a *LockedError", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if l.File() != nil {
		t.Error("File() after Release is not nil")
	}
	if held, err := journal.Held(path); err != nil || held {
		t.Fatalf("Held after Release, child alive = %v, %v; want false", held, err)
	}
	if err := l.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
}
