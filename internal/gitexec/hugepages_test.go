package gitexec

import (
	"os"
	"runtime"
	"slices"
	"testing"
)

// The status child's GLIBC_TUNABLES: added when unset, appended to a
// user's value, left alone when the user already chose about huge pages.
func TestHugePagesEnv(t *testing.T) {
	if runtime.GOOS != "linux" {
		if got := HugePagesEnv(); got != nil {
			t.Fatalf("HugePagesEnv() = %q off Linux, want nothing", got)
		}
		return
	}
	for _, c := range []struct {
		user string
		set  bool
		want []string
	}{
		{set: false, want: []string{"GLIBC_TUNABLES=glibc.malloc.hugetlb=1"}},
		{user: "", set: true, want: []string{"GLIBC_TUNABLES=glibc.malloc.hugetlb=1"}},
		{user: "glibc.malloc.arena_max=2", set: true,
			want: []string{"GLIBC_TUNABLES=glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"}},
		{user: "glibc.malloc.hugetlb=0", set: true, want: nil},
		{user: "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=2", set: true, want: nil},
	} {
		if c.set {
			t.Setenv("GLIBC_TUNABLES", c.user)
		} else {
			t.Setenv("GLIBC_TUNABLES", "")
			os.Unsetenv("GLIBC_TUNABLES") // t.Setenv restores it afterwards
		}
		if got := HugePagesEnv(); !slices.Equal(got, c.want) {
			t.Errorf("GLIBC_TUNABLES=%q (set %v): HugePagesEnv() = %q, want %q", c.user, c.set, got, c.want)
		}
	}
}
