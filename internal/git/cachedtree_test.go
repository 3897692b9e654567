package git

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nudgethis/git-nudge/internal/testutil"
)

// CachedTree names what git write-tree writes when the cache-tree covers
// the index, and nothing otherwise (git is asked then).
func TestCachedTree(t *testing.T) {
	dir := testutil.Repo(t)
	testutil.Commit(t, dir, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n"}, "one")
	r, err := Discover(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	user := Index{Path: r.IndexPath()}
	if got, want := r.CachedTree(user), gitT(t, dir, "write-tree"); got != want {
		t.Errorf("after a commit: %q, want %q", got, want)
	}
	testutil.WriteFile(t, dir, "d/b.txt", "staged\n")
	gitT(t, dir, "add", "d/b.txt")
	if got := r.CachedTree(user); got != "" {
		t.Errorf("after git add: %q, want none (the cache-tree is not whole)", got)
	}
	want := gitT(t, dir, "write-tree") // makes the cache-tree whole again
	if got := r.CachedTree(user); got != want {
		t.Errorf("after git write-tree: %q, want %q", got, want)
	}
	testutil.WriteFile(t, dir, "new.txt", "n\n")
	gitT(t, dir, "add", "-N", "new.txt")
	gitT(t, dir, "write-tree")
	if got := r.CachedTree(user); got != "" {
		t.Errorf("with an intent-to-add entry: %q, want none", got)
	}
	if got := r.CachedTree(Index{Path: filepath.Join(t.TempDir(), "none")}); got != "" {
		t.Errorf("no index file: %q", got)
	}
	os.Remove(r.IndexPath())
	if got := r.CachedTree(user); got != "" {
		t.Errorf("removed index: %q", got)
	}
}
