package proc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// InDir reports whether a live process other than this one has its
// working directory or its root inside dir (read from /proc; where there
// is no /proc it reports false). A process the caller cannot inspect is
// not counted.
func InDir(dir string) bool {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return false
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

// Umask returns the process's file mode creation mask (read from
// /proc/self/status, without changing it; 022 where that cannot be read).
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
	return 0o022
}
