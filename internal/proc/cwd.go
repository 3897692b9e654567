package proc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// InDir reports whether a live process other than this one has its
// working directory or its root inside dir (read from /proc). Where /proc
// cannot be read it cannot tell, and reports true: a caller deciding
// whether a folder may be reused must not reuse it then. A process the
// caller cannot inspect is not counted.
func InDir(dir string) bool {
	ents, err := os.ReadDir("/proc")
	if err != nil || len(ents) == 0 {
		return true
	}
	real := dir
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		real = r
	}
	self := os.Getpid()
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		for _, link := range []string{"cwd", "root"} {
			target, err := os.Readlink(filepath.Join("/proc", e.Name(), link))
			if err != nil {
				continue
			}
			if target == real || strings.HasPrefix(target, real+string(filepath.Separator)) {
				return true
			}
		}
	}
	return false
}

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
