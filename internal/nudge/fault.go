package nudge

import (
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
