//go:build linux

package worktree

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/go-git/go-billy/v5"
)

// slowFS hides the RootFS from Tree.Lstat, which then takes the way
// through os.Root one leading folder at a time.
type slowFS struct{ billy.Filesystem }

// Lstat's two-call way (openat2, fstatat) says exactly what the slow way
// says, for every kind of entry and every kind of leading folder, and
// checks it really took the fast way where it can.
func TestLstatFastAgreesWithSlow(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mk := func(p string, mode os.FileMode) {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil {
			t.Fatal(err)
		}
	}
	mk("top.txt", 0o644)
	mk("a/b/c/file.txt", 0o640)
	mk("a/b/c/run.sh", 0o755)
	mk("a/b/suid", 0o4755)
	mk("a/b/sticky", 0o1644)
	mk("a/file-as-folder", 0o644)
	if err := os.Symlink("c", filepath.Join(root, "a", "b", "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "abs-link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "a", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	fast := mustOpen(t, root)
	slow := &Tree{fs: slowFS{fast.fs}, syncDirs: true}
	for _, c := range []struct {
		p        string
		fastPath bool
	}{
		{"top.txt", true}, {"a/b/c/file.txt", true}, {"a/b/c/run.sh", true}, {"a/b/suid", true},
		{"a/b/sticky", true}, {"a/b/c", true}, {"a/b/link", true}, {"a/fifo", true}, {"abs-link", true},
		{"missing.txt", true}, {"a/b/missing", true},
		{"a/missing/x.txt", false}, {"a/b/link/file.txt", false}, {"abs-link/b/c/file.txt", false},
		{"a/file-as-folder/x", false}, {"a/fifo/x", false},
	} {
		got, err1 := fast.Lstat(c.p)
		want, err2 := slow.Lstat(c.p)
		if err1 != nil || err2 != nil || got != want {
			t.Errorf("%s: fast %+v (%v), slow %+v (%v)", c.p, got, err1, want, err2)
		}
		if _, ok := fast.fs.(*RootFS).lstatFast(c.p); ok != c.fastPath {
			t.Errorf("%s: answered the fast way: %v, want %v", c.p, ok, c.fastPath)
		}
	}
}
