package git

import (
	"context"
	"os"
	"path/filepath"
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
