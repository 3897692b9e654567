package gitstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A ref file rewritten in place (not by git's rename, so its folder's
// times stay as they were), even with its modification time set back, is
// read again by a long-lived process: the dashboard must not answer from
// a stale listing. Not parallel: it shortens refCacheRecent so the listing
// is kept at once.
func TestRefCacheSeesInPlaceRewrite(t *testing.T) {
	saved := refCacheRecent
	refCacheRecent = -int64(time.Hour)
	defer func() { refCacheRecent = saved }()

	r := newTestStore(t)
	if !r.InProcess() {
		t.Skip("git's files are not read in this process here")
	}
	c1 := gitT(t, r.WorkTree, "commit-tree", "-m", "one", r.EmptyTree())
	c2 := gitT(t, r.WorkTree, "commit-tree", "-m", "two", r.EmptyTree())
	gitT(t, r.WorkTree, "update-ref", "refs/autodev/checkpoints/c1", c1)
	for i := 0; i < 2; i++ { // the second read comes from the kept listing
		m, ok := r.RefsFast([]string{"refs/autodev/"})
		if !ok || m["refs/autodev/checkpoints/c1"] != c1 {
			t.Fatalf("read %d: %v (read here: %v)", i, m, ok)
		}
	}
	ref := filepath.Join(r.CommonDir, "refs", "autodev", "checkpoints", "c1")
	st, err := os.Stat(ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(strings.TrimSpace(c2)) != len(strings.TrimSpace(c1)) {
		t.Fatal("ids of different lengths")
	}
	f, err := os.OpenFile(ref, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(c2 + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(ref, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	m, ok := r.RefsFast([]string{"refs/autodev/"})
	if !ok || m["refs/autodev/checkpoints/c1"] != c2 {
		t.Fatalf("after an in-place rewrite with its time set back: %v (read here: %v; want c1 at %s)", m, ok, c2)
	}
}

// packed-refs is parsed once per version and kept, and every new version
// git writes (a ref deleted from it, refs packed again) is what the next
// read answers from, for one ref (ReadOneRef) as for a folder (RefsFast).
func TestPackedRefsKeptSeeEachVersion(t *testing.T) {
	t.Parallel()
	r := newTestStore(t)
	if !r.InProcess() {
		t.Skip("git's files are not read in this process here")
	}
	c1 := strings.TrimSpace(gitT(t, r.WorkTree, "commit-tree", "-m", "one", r.EmptyTree()))
	c2 := strings.TrimSpace(gitT(t, r.WorkTree, "commit-tree", "-m", "two", r.EmptyTree()))
	gitT(t, r.WorkTree, "update-ref", "refs/autodev/checkpoints/c1", c1)
	gitT(t, r.WorkTree, "update-ref", "refs/autodev/checkpoints/c2", c1)
	gitT(t, r.WorkTree, "pack-refs", "--all")
	one := func(name string) string {
		t.Helper()
		v, ok, handled := r.ReadOneRef(name)
		if !handled {
			t.Fatalf("%s: left to git", name)
		}
		if !ok {
			return ""
		}
		return v
	}
	folder := func() map[string]string {
		t.Helper()
		m, ok := r.RefsFast([]string{"refs/autodev/"})
		if !ok {
			t.Fatal("RefsFast: left to git")
		}
		return m
	}
	// A version is kept once its change time is refCacheRecent old.
	time.Sleep(time.Duration(refCacheRecent) + 100*time.Millisecond)
	first, ok := r.packed()
	if again, _ := r.packed(); !ok || first == nil || again != first {
		t.Fatalf("packed-refs parsed again while unchanged (%v)", ok)
	}
	if one("refs/autodev/checkpoints/c2") != c1 || len(folder()) != 2 {
		t.Fatalf("packed: %v", folder())
	}
	gitT(t, r.WorkTree, "update-ref", "-d", "refs/autodev/checkpoints/c2")
	if v := one("refs/autodev/checkpoints/c2"); v != "" {
		t.Fatalf("a ref deleted from packed-refs still reads %s", v)
	}
	if m := folder(); len(m) != 1 || m["refs/autodev/checkpoints/c1"] != c1 {
		t.Fatalf("after a deletion: %v", m)
	}
	gitT(t, r.WorkTree, "update-ref", "refs/autodev/checkpoints/c1", c2)
	gitT(t, r.WorkTree, "pack-refs", "--all")
	if v := one("refs/autodev/checkpoints/c1"); v != c2 {
		t.Fatalf("packed again: c1 reads %s, want %s", v, c2)
	}
	if m := folder(); len(m) != 1 || m["refs/autodev/checkpoints/c1"] != c2 {
		t.Fatalf("packed again: %v", m)
	}
}
