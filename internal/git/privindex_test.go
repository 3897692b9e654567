package git

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every private index lives in the git dir under a name that says whose it
// is: one a kill leaves behind is listed by LeftoverIndexes with the pid of
// the process that made it.
func TestPrivateIndexNamedWithPid(t *testing.T) {
	r := newApplyRepo(t)
	ix, done, err := r.PrivateIndex("nudge-save")
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	path := ix.Path
	if err := r.ReadTree(context.Background(), ix, r.EmptyTree()); err != nil {
		t.Fatal(err)
	}
	left, err := r.LeftoverIndexes("nudge-save")
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0].Path != path || left[0].PID != os.Getpid() {
		t.Fatalf("LeftoverIndexes = %+v, want %s made by pid %d", left, path, os.Getpid())
	}
	again, done2, err := r.PrivateIndex("nudge-save")
	if err != nil {
		t.Fatal(err)
	}
	defer done2()
	if again.Path == path {
		t.Errorf("two private indexes share the name %s", path)
	}
}

// The index apply hashes and checks out through is a private index like
// any other, in the git dir: it needs no writable TMPDIR, and the one
// cleanup rule leaves nothing behind.
func TestApplyIndexInGitDir(t *testing.T) {
	r := newApplyRepo(t)
	writeT(t, r.WorkTree, "a.txt", "one\n", 0o644)
	gitT(t, r.WorkTree, "add", "a.txt")
	gitT(t, r.WorkTree, "commit", "-qm", "a")
	blob := strings.TrimSpace(gitT(t, r.WorkTree, "rev-parse", "HEAD:a.txt"))
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	out := filepath.Join(t.TempDir(), "out")
	if err := r.CheckoutTo(context.Background(), out, []IndexEntry{{Mode: "100644", Blob: blob, Path: "a.txt"}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "a.txt")); string(got) != "one\n" {
		t.Errorf("checked out %q", got)
	}
	ents, _ := os.ReadDir(r.GitDir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "nudge-") {
			t.Errorf("left behind in the git dir: %s", e.Name())
		}
	}
}
