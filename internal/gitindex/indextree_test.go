package gitindex

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
