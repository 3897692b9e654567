package journal_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// A second process waits for the lock and gets it only once the first has
// let go: the holder creates a marker just before releasing, and the
// waiter checks for it the moment it holds the lock.
func TestLockSecondProcessWaits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.lock")
	marker := filepath.Join(dir, "released")

	holder := startHelper(t, "hold", path, marker)
	holder.expect(t, "locked")
	waiter := startHelper(t, "wait", path, marker)
	waiter.expect(t, "held=true")
	// Give the waiter a moment to be inside Acquire; correctness does not
	// depend on it (the marker check does), only the test's strength.
	time.Sleep(100 * time.Millisecond)
	if held, err := journal.Held(path); err != nil || !held {
		t.Fatalf("Held while the holder runs = %v, %v; want true", held, err)
	}
	if err := holder.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	waiter.expect(t, "acquired marker=true")
	if err := holder.cmd.Wait(); err != nil {
		t.Errorf("holder: %v", err)
	}
	if err := waiter.cmd.Wait(); err != nil {
		t.Errorf("waiter: %v", err)
	}
	if held, err := journal.Held(path); err != nil || held {
		t.Errorf("Held after both released = %v, %v; want false", held, err)
	}
}

func TestLockTimeoutNamesHolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.lock")
	holder := startHelper(t, "hold", path, filepath.Join(dir, "released"))
	holder.expect(t, "locked")
	pid := holder.cmd.Process.Pid

	for _, timeout := range []time.Duration{0, 50 * time.Millisecond} {
		l, err := journal.Acquire(context.Background(), path, timeout, "test")
		var le *journal.LockedError
		if !errors.As(err, &le) {
			l.Release()
			t.Fatalf("Acquire(timeout %v) while held = %v, want *LockedError", timeout, err)
		}
		if le.Path != path || !strings.Contains(le.Holder, fmt.Sprintf("pid %d", pid)) {
			t.Errorf("LockedError = %+v, want path %s and holder pid %d", le, path, pid)
		}
		msg := err.Error()
		if !strings.Contains(msg, fmt.Sprintf("pid %d (test holder)", pid)) || !strings.Contains(msg, path) {
			t.Errorf("message %q does not name the holder pid %d and the lock file", msg, pid)
		}
	}
	if got := journal.HolderPID(path); got != pid {
		t.Errorf("HolderPID = %d, want %d", got, pid)
	}

	// A caller giving up (context cancelled) hears that, not "locked".
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(30 * time.Millisecond); cancel() }()
	if _, err := journal.Acquire(ctx, path, time.Minute, "test"); !errors.Is(err, context.Canceled) {
		t.Errorf("Acquire with a cancelled context = %v, want context.Canceled", err)
	}
}

// The kernel drops a flock when its holder dies, however it dies: the
// next Acquire succeeds without waiting (a zero timeout tries once).
func TestLockReleasedWhenHolderKilled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.lock")
	holder := startHelper(t, "hold", path, filepath.Join(dir, "released"))
	holder.expect(t, "locked")
	if held, err := journal.Held(path); err != nil || !held {
		t.Fatalf("Held = %v, %v; want true", held, err)
	}
	if err := holder.cmd.Process.Kill(); err != nil { // SIGKILL on Unix
		t.Fatal(err)
	}
	_ = holder.cmd.Wait()
	if held, err := journal.Held(path); err != nil || held {
		t.Errorf("Held after SIGKILL of the holder = %v, %v; want false", held, err)
	}
	l, err := journal.Acquire(context.Background(), path, 0, "after kill")
	if err != nil {
		t.Fatalf("Acquire(timeout 0) after the holder was killed: %v", err)
	}
	if got := journal.HolderPID(path); got == holder.cmd.Process.Pid || got == 0 {
		t.Errorf("HolderPID = %d after re-acquiring; want this process, not the dead holder", got)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
}

func TestLockInProcess(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sub", "x.lock")
	if held, err := journal.Held(path); err != nil || held {
		t.Fatalf("Held of a lock file that does not exist = %v, %v", held, err)
	}
	l, err := journal.Acquire(context.Background(), path, 0, "first")
	if err != nil {
		t.Fatalf("Acquire(timeout 0) of a free lock: %v", err)
	}
	if held, err := journal.Held(path); err != nil || !held {
		t.Errorf("Held while held by this process = %v, %v; want true", held, err)
	}
	if _, err := journal.Acquire(context.Background(), path, 0, "second"); err == nil {
		t.Error("a second Acquire of a held lock succeeded")
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if held, err := journal.Held(path); err != nil || held {
		t.Errorf("Held after Release = %v, %v; want false", held, err)
	}
	l2, err := journal.Acquire(context.Background(), path, 0, "next")
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Errorf("second Release of the first lock: %v", err)
	}
	note, _ := os.ReadFile(path)
	if held, _ := journal.Held(path); !held || string(note) != fmt.Sprintf("pid %d (next)\n", os.Getpid()) {
		t.Errorf("a stale second Release disturbed the next holder (held %v, note %q)", held, note)
	}
	if err := l2.Release(); err != nil {
		t.Fatal(err)
	}
	var nilLock *journal.Lock
	if err := nilLock.Release(); err != nil {
		t.Errorf("Release of a nil lock: %v", err)
	}
}
