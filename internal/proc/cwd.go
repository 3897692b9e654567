package proc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Umask returns the process's file mode creation mask, without changing
// it: read from /proc/self/status, or else from the mode a new folder
// asked for as 0777 gets (the mask is process-wide, so setting and restoring it
// would race with other goroutines creating files).
func Umask() os.FileMode {
	b, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Umask:"); ok {
				if n, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
					return os.FileMode(n)
				}
			}
		}
	}
	return umaskByProbe()
}

// umaskByProbe is Umask where /proc cannot be read: the bits a new folder
// asked for as 0777 lacks (022 if even that fails).
func umaskByProbe() os.FileMode {
	parent, err := os.MkdirTemp("", "umask-probe-")
	if err != nil {
		return 0o022
	}
	defer os.RemoveAll(parent)
	probe := filepath.Join(parent, "d")
	if err := os.Mkdir(probe, 0o777); err != nil {
		return 0o022
	}
	st, err := os.Stat(probe)
	if err != nil {
		return 0o022
	}
	return 0o777 &^ st.Mode().Perm()
}
