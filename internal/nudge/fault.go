package nudge

import (
	"os"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/fault"
)

// FaultEnv names the test-only variable that makes git-nudge die (SIGKILL)
// at a named point of apply, undo or save, so that crash tests can check
// what the next command finds. The points, and the state each leaves, are
// listed in docs/RELIABILITY.md: the one list of every fault point of both
// binaries.
const FaultEnv = "GIT_NUDGE_TEST_FAULT"

var faults = fault.New(FaultEnv)

// FaultPoint kills the process when GIT_NUDGE_TEST_FAULT names point
// (see docs/RELIABILITY.md).
func FaultPoint(point string) { faults.Point(point) }

// PauseEnv names the test-only variable that makes git-nudge wait at a
// named point: GIT_NUDGE_TEST_PAUSE=POINT=FILE creates FILE.reached when
// the point is reached, then waits (up to two minutes) until FILE exists.
// Tests use it to run other commands while one is held at that point
// (docs/RELIABILITY.md lists the points).
const PauseEnv = "GIT_NUDGE_TEST_PAUSE"

// pausePoint waits at point when GIT_NUDGE_TEST_PAUSE names it.
func pausePoint(point string) {
	v, ok := strings.CutPrefix(os.Getenv(PauseEnv), point+"=")
	if !ok || v == "" {
		return
	}
	_ = os.WriteFile(v+".reached", nil, 0o644)
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(v); err == nil {
			return
		}
	}
}
