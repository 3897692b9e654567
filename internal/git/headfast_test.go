package git

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/testutil"
)

// HeadTree answers from the files when HEAD's commit is a loose object
// (no git process), and whatever the case it answers what git rev-parse
// does: a branch, a detached HEAD, a packed ref, a packed commit, a
// linked worktree, an unborn branch, replace refs, a SHA-256 repository.
func TestHeadTreeFromFiles(t *testing.T) {
	ctx := context.Background()
	type setup func(t *testing.T, dir string) (gitDir string)
	loose := func(t *testing.T, dir string) string { return "" }
	for _, c := range []struct {
		name   string
		init   []string
		setup  setup
		noGit  bool // answered without a git process
		unborn bool
	}{
		{name: "branch", setup: loose, noGit: true},
		{name: "sha256", init: []string{"--object-format=sha256"}, setup: loose, noGit: true},
		{name: "detached", setup: func(t *testing.T, dir string) string {
			gitT(t, dir, "checkout", "-q", "--detach")
			return ""
		}, noGit: true},
		{name: "packed ref", setup: func(t *testing.T, dir string) string {
			gitT(t, dir, "pack-refs", "--all")
			return ""
		}, noGit: true},
		{name: "packed commit", setup: func(t *testing.T, dir string) string {
			gitT(t, dir, "gc", "-q", "--prune=now")
			return ""
		}},
		{name: "linked worktree", setup: func(t *testing.T, dir string) string {
			wt := filepath.Join(t.TempDir(), "wt")
			gitT(t, dir, "worktree", "add", "-q", "-b", "side", wt)
			testutil.Commit(t, wt, map[string]string{"side.txt": "s\n"}, "side")
			return wt
		}, noGit: true},
		{name: "unborn", setup: func(t *testing.T, dir string) string {
			gitT(t, dir, "checkout", "-q", "--orphan", "fresh")
			return ""
		}, unborn: true},
		{name: "replaced", setup: func(t *testing.T, dir string) string {
			other := testutil.Commit(t, dir, map[string]string{"b.txt": "other\n"}, "other")
			gitT(t, dir, "reset", "-q", "--hard", "HEAD~1")
			gitT(t, dir, "replace", gitT(t, dir, "rev-parse", "HEAD"), other)
			return ""
		}},
		{name: "replaced, packed", setup: func(t *testing.T, dir string) string {
			other := testutil.Commit(t, dir, map[string]string{"b.txt": "other\n"}, "other")
			gitT(t, dir, "reset", "-q", "--hard", "HEAD~1")
			gitT(t, dir, "replace", gitT(t, dir, "rev-parse", "HEAD"), other)
			gitT(t, dir, "pack-refs", "--all")
			os.RemoveAll(filepath.Join(dir, ".git", "refs", "replace"))
			return ""
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := testutil.Repo(t, c.init...)
			testutil.Commit(t, dir, map[string]string{"a.txt": "a\n"}, "one")
			testutil.Commit(t, dir, map[string]string{"a.txt": "b\n"}, "two")
			if wt := c.setup(t, dir); wt != "" {
				dir = wt
			}
			r, err := Discover(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			trace := filepath.Join(t.TempDir(), "trace.json")
			t.Setenv("GIT_TRACE2_EVENT", trace)
			h, tree, err := r.HeadTree(ctx)
			os.Unsetenv("GIT_TRACE2_EVENT")
			if err != nil {
				t.Fatal(err)
			}
			traced, _ := os.ReadFile(trace)
			if ran := strings.Contains(string(traced), `"rev-parse"`); c.noGit && ran {
				t.Errorf("git rev-parse ran:\n%s", traced)
			}
			wantBranch := gitOK(t, dir, "symbolic-ref", "-q", "HEAD")
			if h.Branch != wantBranch {
				t.Errorf("branch %q, want %q", h.Branch, wantBranch)
			}
			if c.unborn {
				if h.Commit != "" || tree != "" {
					t.Errorf("unborn: commit %q tree %q", h.Commit, tree)
				}
				return
			}
			if want := gitT(t, dir, "rev-parse", "HEAD^{commit}"); h.Commit != want {
				t.Errorf("commit %s, want %s", h.Commit, want)
			}
			if want := gitT(t, dir, "rev-parse", "HEAD^{tree}"); tree != want {
				t.Errorf("tree %s, want %s", tree, want)
			}
		})
	}
}

// gitOK is git's output, "" when it fails.
func gitOK(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := testutil.TryGit(dir, args...)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// Head is read from HEAD and the ref files, without a git process, where
// that gives git's answer: a branch (loose or packed) or a detached HEAD at
// a commit. Where it cannot (a branch pointing at a tag, which rev-parse
// peels; an unborn branch), git answers as before. Not parallel: it
// empties PATH to prove no git runs.
func TestHeadInProcessAgreesWithGit(t *testing.T) {
	t.Setenv("PATH", os.Getenv("PATH")) // restored at the end; marks the test as not parallel
	r := newApplyRepo(t)
	if !r.InProcess() {
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
	if !r.InProcess() {
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
	if _, ok := r.ObjectInfoInProcess(ids[2]); !ok {
		t.Error("a loose blob was not described in this process")
	}
	gitT(t, r.WorkTree, "repack", "-adqf")
	gitT(t, r.WorkTree, "prune-packed")
	check("packed")
	if _, ok := r.ObjectInfoInProcess(ids[4]); !ok {
		t.Error("a packed, undeltified blob was not described in this process")
	}
	_, ok2 := r.ObjectInfoInProcess(ids[2])
	_, ok3 := r.ObjectInfoInProcess(ids[3])
	if !ok2 && !ok3 {
		t.Error("neither big blob (one is the other's delta base) was described in this process")
	}
}
