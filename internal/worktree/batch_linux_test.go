//go:build linux

package worktree

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// newBatchTree makes a work tree with a file and a stage folder outside
// it, and a batch writing into the tree from that stage.
func newBatchTree(t *testing.T) (root, stage string, tr *Tree, b *Batch) {
	t.Helper()
	root, stage = filepath.Join(t.TempDir(), "wt"), filepath.Join(t.TempDir(), "stage")
	for _, d := range []string{filepath.Join(root, "a", "b"), stage} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "a", "b", "old.txt"), []byte("old\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	tr = mustOpen(t, root)
	b, err := tr.NewBatch(stage)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return root, stage, tr, b
}

func listAll(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != root {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// A batch leaves the work tree as it was until each file is committed:
// temp files wait in the stage, new folders are made at the rename; then
// a replaced file keeps its permission bits, a new one gets git's.
func TestBatchStagesUntilCommit(t *testing.T) {
	root, stage, _, b := newBatchTree(t)
	before := listAll(t, root)
	var ps []*Pending
	for _, p := range []string{"a/b/old.txt", "a/new/deep/n.txt", "top.sh"} {
		pd, err := b.Create(p, p == "top.sh")
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(pd, "content of "+p+"\n")
		ps = append(ps, pd)
	}
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
	if got := listAll(t, root); strings.Join(got, ",") != strings.Join(before, ",") {
		t.Fatalf("the work tree changed before any commit: %v", got)
	}
	if n := len(listAll(t, stage)); n != 3 {
		t.Fatalf("stage holds %d files, want 3", n)
	}
	for _, pd := range ps {
		if err := b.Commit(pd); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"a/b/old.txt", "a/new/deep/n.txt", "top.sh"} {
		got, err := os.ReadFile(filepath.Join(root, p))
		if err != nil || string(got) != "content of "+p+"\n" {
			t.Errorf("%s = %q, %v", p, got, err)
		}
	}
	if fi, _ := os.Stat(filepath.Join(root, "a/b/old.txt")); fi.Mode().Perm() != 0o640 {
		t.Errorf("replaced file has mode %v, want 0640", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(filepath.Join(root, "top.sh")); fi.Mode().Perm() != umasked(t, 0o777) {
		t.Errorf("new executable has mode %v", fi.Mode().Perm())
	}
	if err := b.SyncDirs([]string{"", "a", "a/b", "a/new", "a/new/deep"}); err != nil {
		t.Fatal(err)
	}
	if n := len(listAll(t, stage)); n != 0 {
		t.Errorf("stage still holds %d files", n)
	}
}

// Abort removes the temp files not committed and the folders made for
// them, and leaves what was committed.
func TestBatchAbort(t *testing.T) {
	root, stage, _, b := newBatchTree(t)
	first, _ := b.Create("x/one.txt", false)
	second, _ := b.Create("y/z/two.txt", false)
	io.WriteString(first, "1\n")
	io.WriteString(second, "2\n")
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(first); err != nil {
		t.Fatal(err)
	}
	b.Abort()
	if _, err := os.Stat(filepath.Join(root, "x/one.txt")); err != nil {
		t.Errorf("the committed file is gone: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "y")); !os.IsNotExist(err) {
		t.Errorf("y was left behind: %v", err)
	}
	if n := len(listAll(t, stage)); n != 0 {
		t.Errorf("stage still holds %d files", n)
	}
}

// A folder swapped for a symlink (to the outside) between Create and
// Commit is refused: nothing is renamed through the link.
func TestBatchFolderSwappedBeforeCommit(t *testing.T) {
	root, _, _, b := newBatchTree(t)
	pd, err := b.Create("a/b/old.txt", false)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(pd, "new\n")
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.Rename(filepath.Join(root, "a", "b"), filepath.Join(root, "a", "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "a", "b")); err != nil {
		t.Fatal(err)
	}
	err = b.Commit(pd)
	var be *BlockedError
	if !errors.As(err, &be) {
		t.Fatalf("commit through a swapped folder: %v, want a BlockedError", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("something was written outside: %v", ents)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "a", "moved", "old.txt")); string(got) != "old\n" {
		t.Errorf("the moved folder's file changed: %q", got)
	}
}

// A batch of many more files than the process may hold open at once:
// each file is closed once its content is complete and synced.
func TestBatchManyFiles(t *testing.T) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skip(err)
	}
	low := lim
	low.Cur = 256
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { _ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim) })
	root, _, _, b := newBatchTree(t)
	const n = 1000
	var ps []*Pending
	for i := range n {
		pd, err := b.Create(fmt.Sprintf("many/f%04d.txt", i), false)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(pd, "file %d\n", i)
		b.Done(pd)
		ps = append(ps, pd)
	}
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
	for _, pd := range ps {
		if err := b.Commit(pd); err != nil {
			t.Fatal(err)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(root, "many")); len(ents) != n {
		t.Errorf("%d files written, want %d", len(ents), n)
	}
}
