//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package journal

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"
)

// inheritable is true where the lock is a flock(2) on a descriptor this
// package opens itself (the same kind of lock gofrs/flock takes here, so
// Held and Acquire see it).
const inheritable = true

// lockFile opens path and takes an exclusive flock on it, trying every
// 20 ms until timeout. ok is false when another holder kept it.
func lockFile(ctx context.Context, path string, timeout time.Duration) (*os.File, bool, error) {
	fh, err := OpenFile(path, os.O_CREATE|os.O_RDONLY, 0o644) // a fifo or link is refused, never waited on
	if err != nil {
		return nil, false, err
	}
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(fh.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return fh, true, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case !errors.Is(err, syscall.EWOULDBLOCK):
			fh.Close()
			return nil, false, err
		}
		if timeout <= 0 || !time.Now().Before(deadline) || ctx.Err() != nil {
			fh.Close()
			return nil, false, nil
		}
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// unlockFile lets go of the flock for every descriptor sharing fh's open
// file description.
func unlockFile(fh *os.File) error {
	return syscall.Flock(int(fh.Fd()), syscall.LOCK_UN)
}

// heldBySomeone reports whether another open file description holds a
// flock on fh's file: it tries a non-blocking exclusive lock and lets go.
func heldBySomeone(fh *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(fh.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			_ = syscall.Flock(int(fh.Fd()), syscall.LOCK_UN)
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return true, nil
		default:
			return false, err
		}
	}
}
