package nudgecmd

import (
	"testing"

	"github.com/nudgethis/git-nudge/internal/nudge/runner"
)

// A task whose run ended before it was taken has no state: the summary
// calls it not started rather than leaving a blank.
func TestOutcomesNotStarted(t *testing.T) {
	got := outcomes([]runner.WorkedTask{{ID: "t1", State: "ready"}, {ID: "t2"}, {ID: "t3", State: "failed"}})
	if want := "1 ready, 1 not started, 1 failed"; got != want {
		t.Fatalf("outcomes: %q, want %q", got, want)
	}
}
