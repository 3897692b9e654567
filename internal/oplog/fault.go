package oplog

import "github.com/nudgethis/git-nudge/internal/fault"

// Recording runs in both binaries, so its fault points answer to either
// binary's variable (GIT_NUDGE_TEST_FAULT, GIT_AUTODEV_TEST_FAULT). The
// points, and what each leaves, are listed in docs/RELIABILITY.md.
var faults = []*fault.Var{fault.New("GIT_NUDGE_TEST_FAULT"), fault.New("GIT_AUTODEV_TEST_FAULT")}

func faultPoint(point string) {
	for _, v := range faults {
		v.Point(point)
	}
}
