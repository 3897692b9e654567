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
