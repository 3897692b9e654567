package apply

import (
	"testing"

	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// TestReportsKeepNameBytes: apply's and recover's reports write a name
// that is not valid UTF-8 as its C-quoted form plus path_b64, and read the
// very bytes back.
func TestReportsKeepNameBytes(t *testing.T) {
	const bad = "dir/lat\xe9.txt"
	out := Outcome{ID: "t1", State: nudge.StateApplied, Files: []FileOutcome{{Path: bad, Status: "A"}}}
	rep := Recovery{ID: "t1", Files: []RecoverFile{{Path: bad, Matches: "after", Before: nudge.PathState{Path: bad}, After: nudge.PathState{Path: bad}}},
		Leftovers: []string{"dir/.nudge-x.tmp", bad}, Commands: []string{}}
	testutil.KeepsNameBytes(t, out, "ZGlyL2xhdOkudHh0")
	testutil.KeepsNameBytes(t, rep, "ZGlyL2xhdOkudHh0")
}
