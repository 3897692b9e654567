package git_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// Variables inherited from a calling git (a hook runs with GIT_INDEX_FILE
// set) or from the user must not reach the children: the zero Index is the
// repository's real index, and objects go to the real object store.
func TestInheritedIndexAndObjectDirDoNotLeak(t *testing.T) {
	dir := testutil.Repo(t)
	c := testutil.Commit(t, dir, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n"}, "one")
	ctx := context.Background()
	r := discover(t, dir)
	wantTree := testutil.Git(t, dir, "rev-parse", c+"^{tree}")

	garbage := filepath.Join(t.TempDir(), "garbage-index")
	if err := os.WriteFile(garbage, []byte("this is not an index"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_INDEX_FILE", garbage)
	t.Setenv("GIT_OBJECT_DIRECTORY", t.TempDir())

	// Discovery itself must not be confused either.
	r2 := discover(t, dir)
	where := func(r *git.Repo) [4]string { return [4]string{r.GitDir, r.CommonDir, r.WorkTree, r.ObjectFormat} }
	if where(r2) != where(r) {
		t.Errorf("Discover with GIT_INDEX_FILE set = %q, want %q", where(r2), where(r))
	}
	tree, err := r.WriteTree(ctx, git.Index{})
	if err != nil {
		t.Fatalf("WriteTree(user index) with a garbage GIT_INDEX_FILE inherited: %v", err)
	}
	if tree != wantTree {
		t.Errorf("WriteTree(user index) = %s, want the real index's tree %s", tree, wantTree)
	}
	if ok, err := r.HasObject(ctx, c); err != nil || !ok {
		t.Errorf("HasObject(HEAD) = %v, %v with GIT_OBJECT_DIRECTORY inherited; want true", ok, err)
	}
	// A private index is used when asked for, and only then.
	priv := git.Index{Path: filepath.Join(t.TempDir(), "private")}
	if err := r.ReadTree(ctx, priv, c); err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, dir, "new.txt", "new\n")
	if err := r.AddAll(ctx, priv); err != nil {
		t.Fatal(err)
	}
	privTree, err := r.WriteTree(ctx, priv)
	if err != nil {
		t.Fatal(err)
	}
	if got := testutil.Git(t, dir, "ls-tree", "--name-only", privTree, "new.txt"); got != "new.txt" {
		t.Errorf("private index tree lacks new.txt: ls-tree says %q", got)
	}
	if got := testutil.Git(t, dir, "diff", "--cached", "--name-only"); got != "" {
		t.Errorf("the user's index changed: git diff --cached lists %q", got)
	}
	if b, _ := os.ReadFile(garbage); string(b) != "this is not an index" {
		t.Errorf("the inherited GIT_INDEX_FILE was written: %q", b)
	}
}
