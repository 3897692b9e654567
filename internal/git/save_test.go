package git_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/testutil"
)

// TreeEntries must answer for more paths than a command line can name
// (a save of a large patch), and report paths the tree lacks as removals.
func TestTreeEntriesManyPaths(t *testing.T) {
	t.Parallel()
	dir := testutil.Repo(t)
	files := map[string]string{}
	var paths []string
	long := strings.Repeat("d", 100)
	for i := 0; i < 1500; i++ {
		p := fmt.Sprintf("%s/%s/file-with-a-long-name-%04d.txt", long, long, i)
		files[p] = fmt.Sprintf("%d\n", i)
		paths = append(paths, p)
	}
	c := testutil.Commit(t, dir, files, "many")
	paths = append(paths, "not/in/tree.txt")
	r := discover(t, dir)
	got, err := r.TreeEntries(context.Background(), c, paths)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(paths) {
		t.Fatalf("%d entries for %d paths", len(got), len(paths))
	}
	want0 := testutil.Git(t, dir, "rev-parse", c+":"+paths[0])
	if got[0].Path != paths[0] || got[0].Mode != "100644" || got[0].Blob != want0 {
		t.Errorf("entry 0 = %+v, want mode 100644 blob %s", got[0], want0)
	}
	if last := got[len(got)-1]; last.Mode != "" || last.Blob != "" {
		t.Errorf("a path the tree lacks = %+v, want a removal (no mode, no blob)", last)
	}
}
