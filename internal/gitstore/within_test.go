package gitstore

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// For parentless commits under refs that a kept branch partly shares,
// the walk through the unique objects gives, commit by commit, exactly
// what git rev-list --objects COMMIT --not KEPT lists, loose and packed.
func TestObjectsWithinHereAgreesWithRevList(t *testing.T) {
	t.Parallel()
	for _, packed := range []bool{false, true} {
		r := newTestStore(t)
		dir := r.WorkTree
		writeT(t, dir, "shared/a.txt", "kept\n", 0o644)
		writeT(t, dir, "shared/deep/b.txt", "kept too\n", 0o644)
		gitT(t, dir, "add", "-A")
		gitT(t, dir, "commit", "-qm", "kept")
		var commits []string
		for i := 0; i < 4; i++ {
			// Each commit: the kept folder, a folder the tasks share, and
			// one of its own; made without a parent, as a snapshot is.
			writeT(t, dir, "tasks/common.txt", "common to the tasks\n", 0o644)
			writeT(t, dir, fmt.Sprintf("own%d/x.txt", i), fmt.Sprintf("own %d\n", i), 0o644)
			gitT(t, dir, "add", "-A")
			tree := strings.TrimSpace(gitT(t, dir, "write-tree"))
			c := strings.TrimSpace(gitT(t, dir, "commit-tree", "-m", fmt.Sprint(i), tree))
			gitT(t, dir, "update-ref", fmt.Sprintf("refs/tasks/t%d", i), c)
			commits = append(commits, c)
			gitT(t, dir, "rm", "-rq", "--cached", fmt.Sprintf("own%d", i))
		}
		if packed {
			gitT(t, dir, "gc", "-q")
		}
		within := map[string]int64{}
		for _, id := range strings.Fields(gitT(t, dir, "rev-list", "--objects", "--no-object-names", "--glob=refs/tasks/*", "--not", "HEAD")) {
			within[id] = 1
		}
		got, ok := r.ObjectsWithinHere(commits, within)
		if !ok {
			t.Fatalf("packed=%v: not answered here", packed)
		}
		for _, c := range commits {
			want := strings.Fields(gitT(t, dir, "rev-list", "--objects", "--no-object-names", c, "--not", "HEAD"))
			have := append([]string(nil), got[c]...)
			sort.Strings(want)
			sort.Strings(have)
			if strings.Join(have, " ") != strings.Join(want, " ") {
				t.Errorf("packed=%v, %s: walked %v, rev-list %v", packed, c, have, want)
			}
		}
		// A commit the kept side reaches has nothing of its own.
		head := strings.TrimSpace(gitT(t, dir, "rev-parse", "HEAD"))
		if got, _ := r.ObjectsWithinHere([]string{head}, within); len(got[head]) != 0 {
			t.Errorf("packed=%v: HEAD, which is kept, got %v", packed, got[head])
		}
	}
}
