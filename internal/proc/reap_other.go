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
