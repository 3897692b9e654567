//go:build unix && !linux

package proc

import (
	"fmt"
	"os"
)

// reapSupported says whether this system has the child subreaper (only
// Linux has it: elsewhere commands run without the reaper).
const reapSupported = false

func reap(a reapArgs, report *os.File) int {
	fmt.Fprintf(report, " %q: the reaper needs Linux", a.argv[0])
	report.Close()
	return 127
}

// statOfAny reports whether process pid is alive.
func statOfAny(pid int) (int, byte, bool) {
	return 0, 0, !Gone(pid)
}
