package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// Lock is a held advisory lock on a file (flock). The kernel releases it
// when the holding process dies, however it dies, so a crash never leaves a
// stale lock behind.
type Lock struct {
	f    *flock.Flock
	fh   *os.File // instead of f, for AcquireInheritable
	path string
	// inner is a lock taken while this one was held (AcquireWorkTree),
	// released first.
	inner *Lock
}

// LockedError reports a lock still held by another process after the wait.
type LockedError struct {
	Path   string
	Holder string // "pid 123 (git-nudge apply t3)" when the holder wrote it
	Waited time.Duration
}

func (e *LockedError) Error() string {
	who := "another process"
	if e.Holder != "" {
		who = e.Holder
	}
	return fmt.Sprintf("%s is held by %s (waited %s); wait for it to finish, then run the command again", e.Path, who, e.Waited.Round(time.Millisecond))
}

// Acquire takes the lock at path, waiting up to timeout for another holder to
// let go (a timeout of 0 or less tries once and does not wait). what
// describes this holder ("git-nudge apply t3") for the message a waiting
// process prints.
func Acquire(ctx context.Context, path string, timeout time.Duration, what string) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	if inheritable {
		// Where locks are flock(2), the lock file is opened here, through
		// OpenFile (a fifo or link there is refused, never
		// waited on); the lock is the one AcquireInheritable takes.
		return AcquireInheritable(ctx, path, timeout, what)
	}
	f := flock.New(path, flock.SetPermissions(0o644))
	start := time.Now()
	// One attempt first: flock's context loop gives up without trying
	// when the context is already over, which a zero timeout would be.
	ok, err := f.TryLock()
	if err == nil && !ok && timeout > 0 {
		wctx, cancel := context.WithTimeout(ctx, timeout)
		ok, err = f.TryLockContext(wctx, 20*time.Millisecond)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			err = nil
		}
	}
	if err := settle(ctx, path, what, start, ok, err); err != nil {
		return nil, err
	}
	return &Lock{f: f, path: path}, nil
}

// settle turns the outcome of a locking attempt into the error to return
// (nil when the lock is held), and when held writes the holder note. The
// note is advisory: written through a second descriptor (flock belongs to
// the first), read only for messages.
func settle(ctx context.Context, path, what string, start time.Time, ok bool, err error) error {
	if err != nil {
		return fmt.Errorf("locking %s: %w", path, err)
	}
	if !ok {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &LockedError{Path: path, Holder: readHolder(path), Waited: time.Since(start)}
	}
	note := fmt.Sprintf("pid %d (%s)\n", os.Getpid(), what)
	_ = WriteRegular(path, []byte(note), 0o644)
	return nil
}

func readHolder(path string) string {
	b, err := ReadRegular(path)
	if err != nil {
		return ""
	}
	// A note is one line; a lock may carry more after it (the
	// dashboard's server.lock: where it listens).
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	s = strings.TrimSpace(s)
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// HolderPID returns the pid the current holder wrote, or 0.
func HolderPID(path string) int {
	s := readHolder(path)
	rest, ok := strings.CutPrefix(s, "pid ")
	if !ok {
		return 0
	}
	n, _ := strconv.Atoi(strings.Fields(rest)[0])
	return n
}

// Held reports whether some live process holds the lock at path right now.
func Held(path string) (bool, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if inheritable {
		// Opened through OpenFile: a fifo there is an error, not a wait.
		fh, err := OpenFile(path, os.O_RDONLY, 0)
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		defer fh.Close()
		return heldBySomeone(fh)
	}
	f := flock.New(path)
	ok, err := f.TryLock()
	if err != nil {
		return false, err
	}
	if ok {
		_ = f.Unlock()
		return false, nil
	}
	return true, nil
}

// Release lets go of the lock; releasing twice is harmless. The file stays (removing it would race with
// a waiter that already opened it).
func (l *Lock) Release() error {
	if l != nil && l.inner != nil {
		in := l.inner
		l.inner = nil
		_ = in.Release()
	}
	if l != nil && l.fh != nil {
		return l.releaseFile()
	}
	if l == nil || l.f == nil {
		return nil
	}
	f := l.f
	l.f = nil // a second Release must not blank a later holder's note
	_ = WriteRegular(l.path, nil, 0o644)
	return f.Unlock()
}
