package pool

import (
	"os"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/fault"
)

// faults is git-nudge's fault variable (GIT_NUDGE_TEST_FAULT): the pool's
// points (pool-park, pool-claim, pool-reset, trash-moved) are among
// git-nudge's, listed in docs/RELIABILITY.md.
var faults = fault.New("GIT_NUDGE_TEST_FAULT")

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
