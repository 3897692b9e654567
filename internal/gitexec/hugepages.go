package gitexec

import (
	"os"
	"runtime"
	"strings"
)

// HugePagesEnv is what lets git status's malloc ask for transparent huge
// pages (glibc 2.35 and later; other C libraries and kernels without them
// ignore it): at 100,000 files about four fifths of the page faults of a
// status (the index's entries, the name hash, the copy-on-write faults
// after it starts the fsmonitor hook) go away, a quarter of its CPU time
// (docs/PERFORMANCE.md). Nothing git outputs depends on it. A
// GLIBC_TUNABLES of the user's is kept, and not added to when it already
// says something about huge pages.
func HugePagesEnv() []string {
	if runtime.GOOS != "linux" {
		return nil
	}
	const tun = "glibc.malloc.hugetlb=1"
	v, ok := os.LookupEnv("GLIBC_TUNABLES")
	switch {
	case !ok || v == "":
		return []string{"GLIBC_TUNABLES=" + tun}
	case strings.Contains(v, "glibc.malloc.hugetlb"):
		return nil
	default:
		return []string{"GLIBC_TUNABLES=" + v + ":" + tun}
	}
}
