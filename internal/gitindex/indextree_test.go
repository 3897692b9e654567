package gitindex

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// IndexTreeHere must write the very tree git write-tree writes from the
// same index (same id, its objects readable by git), or leave the index
// to git. Each case builds an index with git, then compares.
func TestIndexTreeHereMatchesWriteTree(t *testing.T) {
	t.Parallel()
	files := `mkdir -p a/b a.b a/b- deep/1/2/3/4 &&
echo 1 >a-b && echo 2 >a.b/x && echo 3 >a/b/c && echo 4 >a/b.d && echo 5 >a0 && echo 6 >a/b-/e &&
echo 7 >deep/1/2/3/4/f && echo 8 >deep/1/z && echo 9 >'sp ace' &&
printf '#!/bin/sh\n' >run.sh && chmod +x run.sh && ln -s a/b/c link &&
git add -A &&
git update-index --add --cacheinfo 160000,$(echo gitlink | git hash-object --stdin),mod/sub`
	type tc struct {
		name   string
		prep   string
		inHere bool // else left to git
		gitErr bool // git write-tree fails on it too
	}
	cases := []tc{
		{name: "no cache-tree", prep: files, inHere: true},
		{name: "valid cache-tree", prep: files + " && git write-tree >/dev/null", inHere: true},
		{name: "partly valid cache-tree", prep: files + " && git write-tree >/dev/null && echo new >a/b/c && echo n >deep/1/z && git add a/b/c deep/1/z", inHere: true},
		{name: "folder added and removed", prep: files + " && git write-tree >/dev/null && git rm -q --cached -r a.b && mkdir -p n/m && echo x >n/m/y && git add n", inHere: true},
		{name: "empty index", prep: "git read-tree --empty", inHere: true},
		{name: "version 4", prep: files + " && git update-index --index-version 4"},
		{name: "conflict", prep: files + ` && printf '100644 %s 1\ta/b/c\n100644 %s 2\ta/b/c\n' $(git rev-parse :a-b) $(git rev-parse :a0) | (git update-index --force-remove a/b/c && git update-index --index-info)`, gitErr: true},
		{name: "intent to add", prep: files + " && echo i >ita && git add -N ita"},
		{name: "skip-worktree", prep: files + " && git update-index --skip-worktree a0"},
		{name: "missing object", prep: files + " && git update-index --add --cacheinfo 100644,$(echo gone | git hash-object --stdin),gone.txt", gitErr: true},
	}
	for _, format := range []string{"sha1", "sha256"} {
		for _, c := range cases {
			t.Run(format+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				sh := func(script string, env ...string) (string, error) {
					x := exec.Command("sh", "-c", script)
					x.Dir = dir
					x.Env = append(os.Environ(), env...)
					out, err := x.CombinedOutput()
					return strings.TrimSpace(string(out)), err
				}
				if out, err := sh("git init -q --object-format=" + format + " . && " + c.prep); err != nil {
					t.Fatalf("prep: %v: %s", err, out)
				}
				data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
				if err != nil {
					t.Fatal(err)
				}
				f, err := openTestStore(dir)
				if err != nil {
					t.Fatal(err)
				}
				tree, ok := f.IndexTreeHere(data)
				if ok != c.inHere {
					t.Fatalf("written here: %v (tree %q), want %v", ok, tree, c.inHere)
				}
				if ok {
					// Its objects are there before git writes any.
					if out, err := sh("git ls-tree -r -t " + tree); err != nil {
						t.Fatalf("git cannot read the tree written here: %v: %s", err, out)
					}
				}
				copyPath := filepath.Join(dir, ".git", "index-copy")
				if err := os.WriteFile(copyPath, data, 0o644); err != nil {
					t.Fatal(err)
				}
				want, err := sh("git write-tree", "GIT_INDEX_FILE="+copyPath)
				if (err != nil) != c.gitErr {
					t.Fatalf("git write-tree: %v: %s", err, want)
				}
				if ok && tree != want {
					got, _ := sh("git ls-tree -r -t " + tree)
					exp, _ := sh("git ls-tree -r -t " + want)
					t.Fatalf("tree %s, git write-tree %s\nhere:\n%s\ngit:\n%s", tree, want, got, exp)
				}
			})
		}
	}
}

// The objects a tree worked out here found in the store are taken as
// there only for a moment (seenFor): the tree of an index that names an
// object removed since is written here within that moment, by design,
// but after it the object is looked for again and the index left to git.
// Every tree written here is complete by git's own check.
func TestIndexTreeHereLooksForObjectsAgainAfterAMoment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sh := func(script string) (string, error) {
		x := exec.Command("sh", "-c", script)
		x.Dir = dir
		out, err := x.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if out, err := sh("git init -q . && mkdir -p a/b && echo 1 >a/b/one && echo 2 >a/two && echo 3 >three && git add -A"); err != nil {
		t.Fatalf("prep: %v: %s", err, out)
	}
	f, err := openTestStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	read := func() []byte {
		data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	tree, ok := f.IndexTreeHere(read())
	if !ok {
		t.Fatal("the index's tree was left to git")
	}
	if out, err := sh("git fsck --no-dangling --strict " + tree); err != nil {
		t.Fatalf("git fsck of the tree written here: %v: %s", err, out)
	}
	// A second index naming the same objects and one new one: written
	// here, complete.
	if out, err := sh("echo 4 >a/b/four && git add a/b/four"); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	tree2, ok := f.IndexTreeHere(read())
	if !ok || tree2 == tree {
		t.Fatalf("second tree %q, written here: %v", tree2, ok)
	}
	if out, err := sh("git fsck --no-dangling --strict " + tree2); err != nil {
		t.Fatalf("git fsck of the second tree: %v: %s", err, out)
	}
	// The blob of a/two goes; once the moment is over, an index naming
	// it is left to git (which refuses it too).
	blob, err := sh("git rev-parse :a/two")
	if err != nil {
		t.Fatal(blob)
	}
	if err := os.Remove(filepath.Join(dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	if out, err := sh("echo 5 >five && git add five"); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	time.Sleep(seenFor + 200*time.Millisecond)
	if tree3, ok := f.IndexTreeHere(read()); ok {
		t.Fatalf("the tree %s naming a removed object was written here", tree3)
	}
}
