package journal

import (
	"context"
	"os"
	"path/filepath"
	"time"
)

// AcquireInheritable is Acquire for a lock that the processes its holder
// starts keep held: File returns the locked file, to be handed to a child
// (exec.Cmd.ExtraFiles). flock belongs to the open file description, which
// the child then shares, so when the holder dies, even by SIGKILL, the
// lock stays held until the child, and whatever it started that kept the
// descriptor, has exited too. Release still lets go for all of them.
//
// On systems without flock(2) it is Acquire, and File returns nil.
func AcquireInheritable(ctx context.Context, path string, timeout time.Duration, what string) (*Lock, error) {
	if !inheritable {
		return Acquire(ctx, path, timeout, what)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	start := time.Now()
	fh, ok, err := lockFile(ctx, path, timeout)
	if err := settle(ctx, path, what, start, ok, err); err != nil {
		return nil, err
	}
	return &Lock{fh: fh, path: path}, nil
}

// File is the open, locked file of a lock taken by AcquireInheritable (nil
// for any other lock, or once released). A child process given it keeps
// the lock held while it lives.
func (l *Lock) File() *os.File {
	if l == nil {
		return nil
	}
	return l.fh
}

// releaseFile unlocks and closes an inheritable lock's file.
func (l *Lock) releaseFile() error {
	fh := l.fh
	l.fh = nil
	_ = WriteRegular(l.path, nil, 0o644)
	err := unlockFile(fh)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	return err
}
