//go:build unix && !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package journal

import (
	"context"
	"errors"
	"os"
	"time"
)

// inheritable is false on the unix systems without flock (AIX, Solaris,
// illumos): AcquireInheritable falls back to Acquire there.
const inheritable = false

func lockFile(context.Context, string, time.Duration) (*os.File, bool, error) {
	return nil, false, errors.New("inheritable locks are not supported on this system")
}

func unlockFile(*os.File) error { return nil }

func heldBySomeone(*os.File) (bool, error) {
	return false, errors.New("flock is not supported on this system")
}
