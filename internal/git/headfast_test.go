package git

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Head is read from HEAD and the ref files, without a git process, where
// that gives git's answer: a branch (loose or packed) or a detached HEAD at
// a commit. Where it cannot (a branch pointing at a tag, which rev-parse
// peels; an unborn branch), git answers as before. Not parallel: it
// empties PATH to prove no git runs.
func TestHeadInProcessAgreesWithGit(t *testing.T) {
	t.Setenv("PATH", os.Getenv("PATH")) // restored at the end; marks the test as not parallel
	r := newApplyRepo(t)
	if !r.fastOK() {
		t.Skip("git's files are not read in this process here")
	}
	ctx := context.Background()
	writeT(t, r.WorkTree, "a.txt", "a\n", 0o644)
	gitT(t, r.WorkTree, "add", "a.txt")
	gitT(t, r.WorkTree, "commit", "-qm", "a")
	commit := gitT(t, r.WorkTree, "rev-parse", "HEAD")
	branch := gitT(t, r.WorkTree, "symbolic-ref", "HEAD")
	noGit := func(want Head) {
		t.Helper()
		path := os.Getenv("PATH")
		os.Setenv("PATH", t.TempDir())
		h, err := r.Head(ctx)
		os.Setenv("PATH", path)
		if err != nil || h != want {
			t.Errorf("Head without git = %+v, %v; want %+v", h, err, want)
		}
	}
	noGit(Head{Branch: branch, Commit: commit})
	gitT(t, r.WorkTree, "pack-refs", "--all")
	if _, err := os.Stat(filepath.Join(r.CommonDir, filepath.FromSlash(branch))); err == nil {
		t.Fatal("pack-refs left the branch loose")
	}
	noGit(Head{Branch: branch, Commit: commit})
	gitT(t, r.WorkTree, "checkout", "-q", "--detach")
	noGit(Head{Commit: commit})
	gitT(t, r.WorkTree, "checkout", "-q", "-")

	// A branch pointing at an annotated tag: git peels it to the commit.
	gitT(t, r.WorkTree, "tag", "-a", "-m", "t", "v1")
	tag := gitT(t, r.WorkTree, "rev-parse", "v1")
	// (git refuses to write it; an old git, or a hand edit, does not.)
	if err := os.WriteFile(filepath.Join(r.CommonDir, filepath.FromSlash(branch)), []byte(tag+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if h, err := r.Head(ctx); err != nil || h.Commit != commit || h.Branch != branch {
		t.Errorf("Head on a branch at a tag = %+v, %v; want the commit %s", h, err, commit)
	}
	// An unborn branch.
	gitT(t, r.WorkTree, "checkout", "-q", "--orphan", "fresh")
	if h, err := r.Head(ctx); err != nil || h.Commit != "" || h.Branch != "refs/heads/fresh" {
		t.Errorf("Head on an unborn branch = %+v, %v", h, err)
	}
}

// Without a sparse checkout mentioned in any config file, which paths lie
// outside it is answered without a git process; with one, git is asked.
// Not parallel: it empties PATH to prove no git runs.
func TestOutsideSparseCheckoutWithoutConfig(t *testing.T) {
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("PATH", os.Getenv("PATH"))
	r := newApplyRepo(t)
	ctx := context.Background()
	path := os.Getenv("PATH")
	os.Setenv("PATH", t.TempDir())
	out, err := r.OutsideSparseCheckout(ctx, []string{"a.txt"})
	os.Setenv("PATH", path)
	if err != nil || out != nil {
		t.Errorf("OutsideSparseCheckout without git = %v, %v; want nil, nil", out, err)
	}
	writeT(t, r.WorkTree, "a.txt", "a\n", 0o644)
	writeT(t, r.WorkTree, "b/c.txt", "c\n", 0o644)
	gitT(t, r.WorkTree, "add", ".")
	gitT(t, r.WorkTree, "commit", "-qm", "ab")
	gitT(t, r.WorkTree, "sparse-checkout", "set", "--no-cone", "/a.txt")
	out, err = r.OutsideSparseCheckout(ctx, []string{"a.txt", "b/c.txt"})
	if err != nil || !out["b/c.txt"] || out["a.txt"] {
		t.Errorf("in a sparse checkout: %v, %v; want b/c.txt outside", out, err)
	}
}

// ObjectInfos answered in this process (loose objects, packed ones stored
// whole) says what git cat-file --batch-check says, deltified and missing
// objects included (those go to git).
func TestObjectInfosInProcessAgreesWithGit(t *testing.T) {
	t.Parallel()
	r := newApplyRepo(t)
	if !r.fastOK() {
		t.Skip("git's files are not read in this process here")
	}
	ctx := context.Background()
	big := strings.Repeat("line of a big file\n", 6000) // > 100 KB: a long size varint
	writeT(t, r.WorkTree, "big.txt", big, 0o644)
	writeT(t, r.WorkTree, "big2.txt", big+"one more line\n", 0o644) // likely stored as a delta once packed
	writeT(t, r.WorkTree, "small.txt", "small\n", 0o644)
	gitT(t, r.WorkTree, "add", ".")
	gitT(t, r.WorkTree, "commit", "-qm", "files")
	ids := strings.Fields(gitT(t, r.WorkTree, "rev-parse", "HEAD", "HEAD^{tree}", "HEAD:big.txt", "HEAD:big2.txt", "HEAD:small.txt"))
	ids = append(ids, strings.Repeat("3", len(ids[0]))) // missing
	check := func(stage string) {
		t.Helper()
		got, err := r.ObjectInfos(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		want, err := r.objectInfosGit(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ids {
			if got[i] != want[i] {
				t.Errorf("%s, %s: in process %+v, git %+v", stage, ids[i], got[i], want[i])
			}
		}
	}
	check("loose")
	if _, ok := r.objectInfoInProcess(ids[2]); !ok {
		t.Error("a loose blob was not described in this process")
	}
	gitT(t, r.WorkTree, "repack", "-adqf")
	gitT(t, r.WorkTree, "prune-packed")
	check("packed")
	if _, ok := r.objectInfoInProcess(ids[4]); !ok {
		t.Error("a packed, undeltified blob was not described in this process")
	}
	_, ok2 := r.objectInfoInProcess(ids[2])
	_, ok3 := r.objectInfoInProcess(ids[3])
	if !ok2 && !ok3 {
		t.Error("neither big blob (one is the other's delta base) was described in this process")
	}
}
