package git_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// The in-process readers and writers of odb.go (used by the operation
// log's recording) must agree with git: same ids, objects git reads back
// and fsck accepts, the same refs and HEAD as for-each-ref, a CAS that
// git's own updates and locks respect, and the index's tree as write-tree.
func TestInProcessObjectsAndRefs(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			dir := testutil.Repo(t, "--object-format="+format)
			c1 := testutil.Commit(t, dir, map[string]string{"f": "1\n", "d/g": "x\n"}, "one")
			ctx := context.Background()
			r := discover(t, dir)

			data := [][]byte{[]byte("hello\n"), {}, []byte("a\x00b\r\n")}
			ids, err := r.WriteObjects(ctx, "blob", data)
			if err != nil {
				t.Fatal(err)
			}
			for i, d := range data {
				p := filepath.Join(t.TempDir(), "b")
				os.WriteFile(p, d, 0o644)
				if want := testutil.Git(t, dir, "hash-object", "--no-filters", p); ids[i] != want {
					t.Errorf("blob %d: id %s, git says %s", i, ids[i], want)
				}
				if got := testutil.Git(t, dir, "cat-file", "-t", ids[i]); got != "blob" {
					t.Errorf("blob %d: git reads type %q", i, got)
				}
			}
			tree, err := r.BlobTree(ctx, ids, []string{r.EmptyTree()})
			if err != nil {
				t.Fatal(err)
			}
			if got := testutil.Git(t, dir, "ls-tree", tree); strings.Count(got, "\n")+1 != 4 {
				t.Errorf("ls-tree of the blob tree:\n%s", got)
			}
			commit, err := r.CommitTree(ctx, git.CommitRequest{Tree: tree, Parents: []string{c1}, Message: "msg\n\nbody",
				Author: git.Identity{Name: "A", Email: "a@x"}, Committer: git.Identity{Name: "A", Email: "a@x"}})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(testutil.Git(t, dir, "log", "-1", "--format=%T %P %an %B", commit)); got != tree+" "+c1+" A msg\n\nbody" {
				t.Errorf("git log of the commit: %q", got)
			}
			parents, msg, err := r.ReadCommit(ctx, commit)
			if err != nil || len(parents) != 1 || parents[0] != c1 || msg != "msg\n\nbody" {
				t.Errorf("ReadCommit = %v %q %v", parents, msg, err)
			}
			const name = "refs/nudgethis-oplog/main"
			if err := r.SetRefFast(ctx, name, commit, r.ZeroID()); err != nil {
				t.Fatal(err)
			}
			if err := r.SetRefFast(ctx, name, c1, r.ZeroID()); !errors.Is(err, git.ErrRefConflict) {
				t.Errorf("create of an existing ref = %v, want a conflict", err)
			}
			if err := r.SetRefFast(ctx, name, c1, c1); !errors.Is(err, git.ErrRefConflict) {
				t.Errorf("CAS from a wrong value = %v, want a conflict", err)
			}
			testutil.WriteFile(t, dir, ".git/"+name+".lock", "")
			if err := r.SetRefFast(ctx, name, c1, commit); !errors.Is(err, git.ErrRefConflict) {
				t.Errorf("CAS of a locked ref = %v, want a conflict", err)
			}
			os.Remove(filepath.Join(dir, ".git", name+".lock"))
			if out, err := testutil.TryGit(dir, "fsck", "--strict", "--no-dangling"); err != nil {
				t.Fatalf("fsck: %v\n%s", err, out)
			}

			// Packed and loose refs read as for-each-ref lists them.
			testutil.Git(t, dir, "update-ref", "refs/autodev/checkpoints/c1", c1)
			testutil.Git(t, dir, "pack-refs", "--all")
			testutil.Git(t, dir, "update-ref", "refs/nudgethis/snapshots/t1", commit)
			testutil.Git(t, dir, "update-ref", "refs/autodev/checkpoints/c1", commit)
			testutil.Git(t, dir, "branch", "side", c1)
			m, head, err := r.RefsAndHead(ctx, "refs/heads/", "refs/nudgethis/", "refs/autodev/")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for n, v := range m {
				got = append(got, v+" "+n)
			}
			sort.Strings(got)
			want := strings.Split(testutil.Git(t, dir, "for-each-ref", "--format=%(objectname) %(refname)", "refs/heads/", "refs/nudgethis/", "refs/autodev/"), "\n")
			sort.Strings(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("refs read here:\n%s\nfor-each-ref:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if head != "ref: refs/heads/main" {
				t.Errorf("HEAD = %q", head)
			}
			// The refs named alone: each as RefsAndHead reads it; absent,
			// outside the prefixes or not a ref name, left out.
			named, nhead, err := r.RefsNamedAndHead(ctx, []string{"refs/autodev/checkpoints/c1", "refs/nudgethis/snapshots/t1",
				"refs/heads/side", "refs/autodev/checkpoints/c9", "refs/autodev/../../HEAD", "refs/nudgethis-oplog/main"},
				"refs/heads/", "refs/nudgethis/", "refs/autodev/")
			wantNamed := map[string]string{"refs/autodev/checkpoints/c1": m["refs/autodev/checkpoints/c1"],
				"refs/nudgethis/snapshots/t1": m["refs/nudgethis/snapshots/t1"], "refs/heads/side": m["refs/heads/side"]}
			if err != nil || nhead != head || !reflect.DeepEqual(named, wantNamed) || named["refs/autodev/checkpoints/c1"] != commit {
				t.Errorf("RefsNamedAndHead = %v %q (%v), want %v %q", named, nhead, err, wantNamed, head)
			}
			// A packed ref is swapped too (a loose file overrides it).
			testutil.Git(t, dir, "pack-refs", "--all")
			if err := r.SetRefFast(ctx, name, c1, commit); err != nil {
				t.Fatalf("CAS of a packed ref: %v", err)
			}
			if got := testutil.Git(t, dir, "rev-parse", name); got != c1 {
				t.Errorf("after CAS git reads %s, want %s", got, c1)
			}
			types, err := r.ObjectTypes(ctx, []string{c1, commit, tree, ids[0], strings.Repeat("1", len(c1))})
			if err != nil {
				t.Fatal(err)
			}
			if types[c1] != "commit" || types[commit] != "commit" || types[tree] != "tree" || types[ids[0]] != "blob" || types[strings.Repeat("1", len(c1))] != "" {
				t.Errorf("ObjectTypes = %v", types)
			}
			testutil.Git(t, dir, "repack", "-adq")
			types, _ = r.ObjectTypes(ctx, []string{c1, tree})
			if types[c1] != "commit" || types[tree] != "tree" {
				t.Errorf("ObjectTypes of packed objects = %v", types)
			}

			// The index's tree, from its cache-tree, is write-tree's.
			testutil.WriteFile(t, dir, "new", "n\n")
			testutil.Git(t, dir, "add", "new")
			wt := testutil.Git(t, dir, "write-tree")
			ix, err := r.ReadIndexFile()
			if err != nil || !ix.Plain || ix.Tree != wt {
				t.Errorf("ReadIndexFile: tree %q plain %v (%v), write-tree says %s", ix.Tree, ix.Plain, err, wt)
			}
			testutil.WriteFile(t, dir, "ita", "i\n")
			testutil.Git(t, dir, "add", "-N", "ita")
			if ix, err := r.ReadIndexFile(); err != nil || ix.Plain || ix.Tree != "" {
				t.Errorf("an intent-to-add entry: plain %v tree %q (%v), want bytes kept", ix.Plain, ix.Tree, err)
			}
		})
	}
}

// A ref folder read once is not read again while unchanged, and a ref
// git writes into it afterwards (lock renamed into place) is seen.
func TestRefFolderCache(t *testing.T) {
	t.Parallel()
	dir := testutil.Repo(t)
	c1 := testutil.Commit(t, dir, map[string]string{"f": "1\n"}, "one")
	c2 := testutil.Commit(t, dir, map[string]string{"f": "2\n"}, "two")
	ctx := context.Background()
	r := discover(t, dir)
	testutil.Git(t, dir, "update-ref", "refs/autodev/checkpoints/c1", c1)
	folder := filepath.Join(dir, ".git", "refs", "autodev", "checkpoints")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(folder, old, old); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ { // the second read is from the cache
		m, _, err := r.RefsAndHead(ctx, "refs/autodev/")
		if err != nil || m["refs/autodev/checkpoints/c1"] != c1 {
			t.Fatalf("read %d: %v %v", i, m, err)
		}
	}
	testutil.Git(t, dir, "update-ref", "refs/autodev/checkpoints/c1", c2)
	testutil.Git(t, dir, "update-ref", "refs/autodev/checkpoints/c2", c2)
	m, _, err := r.RefsAndHead(ctx, "refs/autodev/")
	if err != nil || m["refs/autodev/checkpoints/c1"] != c2 || m["refs/autodev/checkpoints/c2"] != c2 {
		t.Fatalf("after git's updates: %v %v", m, err)
	}
}

// The index walker (walkIndex, shared by ReadIndexFile and the private
// index reader) reads every index version git writes: the cache-tree's
// tree is found past the entries of a version 2, 3 and 4 index alike.
func TestReadIndexFileVersions(t *testing.T) {
	t.Parallel()
	dir := testutil.Repo(t)
	testutil.Commit(t, dir, map[string]string{"f": "1\n", "d/g": "x\n", "d/deeper/h": "y\n", "d/deeper/i": "z\n"}, "one")
	r := discover(t, dir)
	for _, v := range []string{"2", "3", "4"} {
		testutil.Git(t, dir, "update-index", "--index-version", v)
		wt := testutil.Git(t, dir, "write-tree")
		ix, err := r.ReadIndexFile()
		if err != nil || !ix.Plain || ix.Tree != wt {
			t.Errorf("version %s: tree %q plain %v (%v), write-tree says %s", v, ix.Tree, ix.Plain, err, wt)
		}
	}
}
