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
