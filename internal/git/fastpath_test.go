package git

import (
	"os"
	"path/filepath"
	"testing"
)

// A config file that includes another (common for a work identity) does
// not by itself send the in-process readers and writers to git; an
// included core.fsync or core.sharedRepository does.
func TestFastPathFollowsIncludes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, included string
		fast           bool
	}{
		{"identity only", "[user]\n\tname = Work Name\n", true},
		{"fsync", "[core]\n\tfsync = all\n", false},
		{"shared", "[core]\n\tsharedRepository = group\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newApplyRepo(t)
			inc := filepath.Join(t.TempDir(), "included.cfg")
			if err := os.WriteFile(inc, []byte(c.included), 0o644); err != nil {
				t.Fatal(err)
			}
			gitT(t, r.WorkTree, "config", "include.path", inc)
			if got := r.fastOK(); got != c.fast {
				t.Errorf("fastOK with an included %q = %v, want %v", c.included, got, c.fast)
			}
		})
	}
}
