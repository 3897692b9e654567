//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package journal

import (
	"context"
	"errors"
	"os"
	"time"
)

// inheritable is false: AcquireInheritable falls back to Acquire.
const inheritable = false

func lockFile(context.Context, string, time.Duration) (*os.File, bool, error) {
	return nil, false, errors.New("inheritable locks are not supported on this system")
}

func unlockFile(*os.File) error { return nil }
