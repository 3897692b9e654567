package worktree

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/memfs"
)

// New wraps any billy filesystem (memfs here).
func New(fsys billy.Filesystem) *Tree { return &Tree{fs: fsys} }

func TestValidPath(t *testing.T) {
	t.Parallel()
	good := []string{"a", "a/b/c.txt", "with space/ü.txt", "-dash", "line\nbreak", ".gitignore", ".github/x", "a/.gitattributes", `back\slash`, "...", ".env", "x/git~2"}
	bad := []string{"", "/abs", "a/", "a//b", "./a", "a/./b", "..", "../x", "a/../b", "a/..", ".git", ".git/config", "sub/.git/HEAD", ".GIT/x", ".git./x", ".git /x", "GIT~1/x", "nul\x00byte", strings.Repeat("a", MaxPathLen+1)}
	for _, p := range good {
		if err := ValidPath(p); err != nil {
			t.Errorf("ValidPath(%q) = %v, want ok", p, err)
		}
	}
	for _, p := range bad {
		var pe *PathError
		if err := ValidPath(p); !errors.As(err, &pe) {
			t.Errorf("ValidPath(%q) = %v, want a *PathError", p, err)
		}
	}
}

// FuzzValidPath checks that every path ValidPath accepts stays strictly
// below the top level, is already clean, and can be written and removed
// through a Tree (in memory) without touching anything else.
func FuzzValidPath(f *testing.F) {
	for _, s := range []string{"a/b", "../x", "a/../../b", ".git/x", "x/.GiT/y", "/etc/passwd", "a\x00b", "ü/ nl\n", "a//b", "./a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if ValidPath(p) != nil {
			return
		}
		root := "/root/dir"
		j := filepath.Join(root, p)
		if !strings.HasPrefix(j, root+"/") {
			t.Fatalf("%q escapes the root: %q", p, j)
		}
		if filepath.Clean(p) != p || strings.HasPrefix(p, "/") {
			t.Fatalf("%q is not clean", p)
		}
		for _, c := range strings.Split(p, "/") {
			if isDotGit(c) || c == ".." || c == "." || c == "" {
				t.Fatalf("%q has a forbidden component %q", p, c)
			}
		}
		tr := New(memfs.New())
		if err := tr.WriteFile("keep", strings.NewReader("k"), false); err != nil {
			t.Fatal(err)
		}
		if p == "keep" || strings.HasPrefix(p, "keep/") {
			return
		}
		if err := tr.WriteFile(p, strings.NewReader("x"), false); err != nil {
			t.Fatalf("WriteFile(%q): %v", p, err)
		}
		if e, err := tr.Lstat(p); err != nil || e.Kind != File || e.Size != 1 {
			t.Fatalf("Lstat(%q) = %+v, %v", p, e, err)
		}
		if _, err := tr.Remove(p); err != nil {
			t.Fatalf("Remove(%q): %v", p, err)
		}
		if e, _ := tr.Lstat("keep"); e.Kind != File {
			t.Fatalf("removing %q took an unrelated file with it", p)
		}
		ents, _ := tr.fs.ReadDir("")
		if len(ents) != 1 {
			t.Fatalf("after removing %q the top level holds %d entries, want only keep", p, len(ents))
		}
	})
}

// umasked returns the permissions a new file created with perm gets here.
func umasked(t *testing.T, perm fs.FileMode) fs.FileMode {
	p := filepath.Join(t.TempDir(), "probe")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, perm)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

func TestWriteFileOS(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	tr := mustOpen(t, root)
	if err := tr.WriteFile("new dir/deep/ü x.sh", strings.NewReader("#!/bin/sh\n"), true); err != nil {
		t.Fatal(err)
	}
	st, err := os.Lstat(filepath.Join(root, "new dir/deep/ü x.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := st.Mode().Perm(), umasked(t, 0o777); got != want {
		t.Errorf("new executable file mode %v, want %v", got, want)
	}
	e, err := tr.Lstat("new dir/deep/ü x.sh")
	if err != nil || e.Kind != File || !e.Exec || e.Size != 10 {
		t.Fatalf("Lstat = %+v, %v", e, err)
	}

	// A replaced file keeps its permission bits, with exec added or removed.
	priv := filepath.Join(root, "private.txt")
	if err := os.WriteFile(priv, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(priv, 0o600); err != nil {
		t.Fatal(err)
	}
	before, _ := tr.Lstat("private.txt")
	if err := tr.WriteFile("private.txt", strings.NewReader("new"), true); err != nil {
		t.Fatal(err)
	}
	st, _ = os.Lstat(priv)
	if st.Mode().Perm() != 0o700 {
		t.Errorf("replaced file mode %v, want 0700", st.Mode().Perm())
	}
	after, _ := tr.Lstat("private.txt")
	if before.Unchanged(after) {
		t.Errorf("Unchanged did not notice a rewrite")
	}
	if err := tr.WriteFile("private.txt", strings.NewReader("new"), false); err != nil {
		t.Fatal(err)
	}
	st, _ = os.Lstat(priv)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("exec bit not cleared: %v", st.Mode().Perm())
	}
	if b, _ := os.ReadFile(priv); string(b) != "new" {
		t.Errorf("content %q", b)
	}
	// No temp file is left behind.
	left, err := tr.Leftovers("")
	if err != nil || len(left) != 0 {
		t.Errorf("Leftovers = %v, %v", left, err)
	}
	// A folder where a file must go is refused.
	var be *BlockedError
	if err := tr.WriteFile("new dir", strings.NewReader("x"), false); !errors.As(err, &be) {
		t.Errorf("writing over a folder: %v", err)
	}
}

func TestSymlinkedFolderToOutside(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	tr := mustOpen(t, root)
	var be *BlockedError
	if err := tr.WriteFile("sub/x.txt", strings.NewReader("x"), false); !errors.As(err, &be) || be.Blocker != "sub" || be.Kind != Symlink {
		t.Fatalf("write through a symlinked folder: %v", err)
	}
	if err := tr.WriteFile("sub/deeper/x.txt", strings.NewReader("x"), false); !errors.As(err, &be) {
		t.Fatalf("write through a symlinked folder: %v", err)
	}
	if _, err := tr.Remove("sub/x.txt"); !errors.As(err, &be) {
		t.Fatalf("remove through a symlinked folder: %v", err)
	}
	e, err := tr.Lstat("sub/x.txt")
	if err != nil || e.Kind != Absent || e.Blocker != "sub" || e.BlockerKind != Symlink {
		t.Fatalf("Lstat beyond a symlink = %+v, %v", e, err)
	}
	ents, _ := os.ReadDir(outside)
	if len(ents) != 0 {
		t.Fatalf("something was written outside the work tree: %v", ents)
	}
	// The link itself is never replaced or removed through the bound fs.
	if err := tr.WriteFile("sub", strings.NewReader("x"), false); !errors.As(err, &be) {
		t.Fatalf("replacing a symlink: %v", err)
	}
	if _, err := tr.Remove("sub"); !errors.As(err, &be) {
		t.Fatalf("removing a symlink: %v", err)
	}
	// A file where a folder is needed.
	if err := os.WriteFile(filepath.Join(root, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := tr.WriteFile("f/x", strings.NewReader("x"), false); !errors.As(err, &be) || be.Kind != File {
		t.Fatalf("write below a file: %v", err)
	}
	// Escapes are refused before the filesystem is asked.
	var pe *PathError
	for _, p := range []string{"../x", "/etc/passwd", "a/../../x"} {
		if err := tr.WriteFile(p, strings.NewReader("x"), false); !errors.As(err, &pe) {
			t.Errorf("WriteFile(%q) = %v", p, err)
		}
	}
}

func TestRemovePrunes(t *testing.T) {
	t.Parallel()
	for name, tr := range map[string]*Tree{"os": mustOpen(t, t.TempDir()), "mem": New(memfs.New())} {
		for _, p := range []string{"a/b/c/one", "a/b/two", "a/keep", "top"} {
			if err := tr.WriteFile(p, bytes.NewReader([]byte(p)), false); err != nil {
				t.Fatal(err)
			}
		}
		pruned, err := tr.Remove("a/b/c/one")
		if err != nil || len(pruned) != 1 || pruned[0] != "a/b/c" {
			t.Errorf("%s: Remove = %v, %v; want [a/b/c]", name, pruned, err)
		}
		pruned, err = tr.Remove("a/b/two")
		if err != nil || len(pruned) != 1 || pruned[0] != "a/b" {
			t.Errorf("%s: Remove = %v, %v; want [a/b] (a still holds keep)", name, pruned, err)
		}
		pruned, err = tr.Remove("top")
		if err != nil || len(pruned) != 0 {
			t.Errorf("%s: Remove(top) = %v, %v", name, pruned, err)
		}
		if e, _ := tr.Lstat("a/keep"); e.Kind != File {
			t.Errorf("%s: a/keep lost", name)
		}
		if pruned, err := tr.Remove("missing/file"); err != nil || pruned != nil {
			t.Errorf("%s: removing a missing file: %v %v", name, pruned, err)
		}
		if _, err := tr.Remove("a/keep"); err != nil {
			t.Fatal(err)
		}
		if e, _ := tr.Lstat("a"); e.Kind != Absent {
			t.Errorf("%s: empty folder a not pruned", name)
		}
		if err := tr.SyncDir(""); err != nil {
			t.Errorf("%s: SyncDir: %v", name, err)
		}
	}
}

func TestIsTempName(t *testing.T) {
	t.Parallel()
	n, err := tempName("d")
	if err != nil {
		t.Fatal(err)
	}
	if !IsTempName(filepath.Base(n)) || filepath.Dir(n) != "d" {
		t.Errorf("tempName %q not recognized", n)
	}
	for _, s := range []string{".nudge-.tmp", ".nudge-zzzzzzzzzzzzzzzz.tmp", "x.tmp", ".nudge-0123456789abcdef"} {
		if IsTempName(s) {
			t.Errorf("IsTempName(%q) = true", s)
		}
	}
}

func mustOpen(t *testing.T, root string) *Tree {
	t.Helper()
	tr, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	return tr
}

// RootFS never reaches outside its top level: not through a symlinked
// folder, not by removing or renaming a symlink (the link itself goes).
func TestRootFSStaysInside(t *testing.T) {
	t.Parallel()
	top, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "keep"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"rel": "../" + filepath.Base(outside), "abs": outside, "file": filepath.Join(outside, "keep")} {
		if err := os.Symlink(target, filepath.Join(top, link)); err != nil {
			t.Fatal(err)
		}
	}
	fsys, err := OpenRootFS(top)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	for _, p := range []string{"rel/new", "abs/new", "rel/keep"} {
		if f, err := fsys.OpenFile(p, os.O_WRONLY|os.O_CREATE, 0o644); err == nil {
			f.Close()
			t.Errorf("OpenFile(%q) went through a symlink to the outside", p)
		}
		if err := fsys.MkdirAll(p+"/d", 0o755); err == nil {
			t.Errorf("MkdirAll(%q) went through a symlink to the outside", p)
		}
	}
	if _, err := fsys.Chroot("rel"); err == nil {
		t.Error("Chroot through a symlink to the outside")
	}
	if err := fsys.Rename("file", "moved"); err != nil {
		t.Fatal(err)
	}
	if err := fsys.Remove("moved"); err != nil {
		t.Fatal(err)
	}
	if err := fsys.Remove("rel"); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != "keep" {
		t.Fatalf("outside holds %v, want only keep", ents)
	}
	if b, err := os.ReadFile(filepath.Join(outside, "keep")); err != nil || string(b) != "keep" {
		t.Fatalf("keep: %q %v", b, err)
	}
	if _, err := os.Lstat(filepath.Join(top, "rel")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the link itself was not removed: %v", err)
	}
}

// listCounter counts full folder listings (ReadDir).
type listCounter struct {
	billy.Filesystem
	lists map[string]int
}

func (c *listCounter) ReadDir(p string) ([]fs.FileInfo, error) {
	c.lists[p]++
	return c.Filesystem.ReadDir(p)
}

// TestPruneAllReadsEachFolderOnce: removing n files of one folder, then
// pruning, lists each folder once, not once per file (undo of 4,000 files
// added to one folder was quadratic), and prunes exactly the folders left
// empty, on the real filesystem too.
func TestPruneAllReadsEachFolderOnce(t *testing.T) {
	t.Parallel()
	c := &listCounter{Filesystem: memfs.New(), lists: map[string]int{}}
	for name, tr := range map[string]*Tree{"os": mustOpen(t, t.TempDir()), "mem": New(c)} {
		var paths []string
		for i := 0; i < 300; i++ {
			paths = append(paths, fmt.Sprintf("big/f%03d", i), fmt.Sprintf("nest/d%03d/f", i))
		}
		for _, p := range append(paths, "keep/a", "keep/sub/b") {
			if err := tr.WriteFile(p, strings.NewReader(p), false); err != nil {
				t.Fatal(err)
			}
		}
		paths = append(paths, "keep/sub/b")
		for _, p := range paths {
			if err := tr.RemoveFile(p); err != nil {
				t.Fatal(err)
			}
		}
		pruned := tr.PruneAll(paths)
		if len(pruned) != 303 {
			t.Errorf("%s: %d folders pruned, want 303 (big, nest, its 300 folders, keep/sub)", name, len(pruned))
		}
		for _, d := range []string{"big", "nest", "nest/d007", "keep/sub"} {
			if e, _ := tr.Lstat(d); e.Kind != Absent {
				t.Errorf("%s: empty folder %s not pruned", name, d)
			}
		}
		if e, _ := tr.Lstat("keep/a"); e.Kind != File {
			t.Errorf("%s: keep/a lost", name)
		}
	}
	for d, n := range c.lists {
		if n > 1 {
			t.Errorf("folder %q listed %d times", d, n)
		}
	}
	if c.lists["big"] != 1 || c.lists["nest"] != 1 {
		t.Errorf("listings: %v", c.lists)
	}
}

// TestRemoveAny: restore's removal of parked untracked files removes
// files and symlinks (never following the link), leaves folders, missing
// paths and paths below a symlinked folder alone, and PruneAll then
// prunes only the folders left empty.
func TestRemoveAny(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "f"), []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := mustOpen(t, top)
	for _, p := range []string{"d/e/file", "d/keep", "dir/inner"} {
		if err := tr.WriteFile(p, strings.NewReader(p), false); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(outside, "f"), filepath.Join(top, "d/e/link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(top, "out")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p    string
		want bool
	}{{"d/e/file", true}, {"d/e/link", true}, {"dir", false}, {"missing", false}, {"out/f", false}, {"d/keep/x", false}} {
		got, err := tr.RemoveAny(c.p)
		if err != nil || got != c.want {
			t.Errorf("RemoveAny(%q) = %v, %v; want %v", c.p, got, err, c.want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(outside, "f")); err != nil || string(b) != "outside" {
		t.Errorf("the file outside the tree was touched: %q, %v", b, err)
	}
	if pruned := tr.PruneAll([]string{"d/e/file", "d/e/link"}); len(pruned) != 1 || pruned[0] != "d/e" {
		t.Errorf("PruneAll = %v, want [d/e] (d still holds keep)", pruned)
	}
	if e, _ := tr.Lstat("dir/inner"); e.Kind != File {
		t.Error("dir/inner lost")
	}
}
