package git_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// TestEditTreeWritesTreesItself: the tree editor writes the new trees as
// loose objects without a git mktree process (which looks up the type of
// every entry: one loose-object read per freshly hashed file), and the
// trees are what git would write; in a repository shared with a group
// git writes them (permissions).
func TestEditTreeWritesTreesItself(t *testing.T) {
	for _, tc := range []struct {
		name       string
		init       []string
		config     []string
		wantMktree bool
	}{
		{name: "sha1"},
		{name: "sha256", init: []string{"--object-format=sha256"}},
		{name: "shared", config: []string{"core.sharedRepository", "group"}, wantMktree: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testutil.Repo(t, tc.init...)
			if tc.config != nil {
				testutil.Git(t, dir, append([]string{"config"}, tc.config...)...)
			}
			base := testutil.Commit(t, dir, map[string]string{"a/one.txt": "1\n", "b/two.txt": "2\n", "top": "t\n"}, "base")
			ctx := context.Background()
			r := discover(t, dir)
			var edits []git.TreeEdit
			want := map[string]string{"a/one.txt": "", "top": ""}
			for _, p := range []string{"new/x.txt", "new/deep/y.txt", "a/three.txt"} {
				testutil.WriteFile(t, dir, p, "content of "+p+"\n")
				id := testutil.Git(t, dir, "hash-object", "-w", "--", p)
				edits = append(edits, git.TreeEdit{Path: p, Mode: git.ModeFile, Object: id})
				want[p] = id
			}
			edits = append(edits, git.TreeEdit{Path: "b/two.txt"}) // removed: b/ goes
			trace := filepath.Join(t.TempDir(), "trace.json")
			t.Setenv("GIT_TRACE2_EVENT", trace)
			tree, baseTree, err := r.EditTree(ctx, base+"^{tree}", edits)
			os.Unsetenv("GIT_TRACE2_EVENT")
			if err != nil {
				t.Fatal(err)
			}
			if baseTree != testutil.Git(t, dir, "rev-parse", base+"^{tree}") {
				t.Errorf("base tree %s", baseTree)
			}
			ls := testutil.Git(t, dir, "ls-tree", "-r", "--name-only", tree)
			got := strings.Split(ls, "\n")
			if len(got) != len(want) {
				t.Errorf("tree holds %q, want the paths of %v", got, want)
			}
			for _, p := range got {
				if _, ok := want[p]; !ok {
					t.Errorf("unexpected path %q in %q", p, got)
				}
				if id := want[p]; id != "" && testutil.Git(t, dir, "rev-parse", tree+":"+p) != id {
					t.Errorf("%s: wrong blob", p)
				}
			}
			testutil.Git(t, dir, "fsck", "--strict", "--no-dangling")
			traced, _ := os.ReadFile(trace)
			if ran := strings.Contains(string(traced), `"mktree"`); ran != tc.wantMktree {
				t.Errorf("git mktree ran: %v, want %v", ran, tc.wantMktree)
			}
			loose := filepath.Join(dir, ".git", "objects", tree[:2], tree[2:])
			st, err := os.Stat(loose)
			if err != nil {
				t.Fatalf("the new tree is not a loose object: %v", err)
			}
			if !tc.wantMktree && st.Mode().Perm() != 0o444 {
				t.Errorf("loose object mode %v, want read-only", st.Mode())
			}
		})
	}
}

// TestCommitTreeWritesCommitItself: with both identities given, the
// commit is written without a git commit-tree process, and it is the very
// object commit-tree writes for the same date; a date from the environment
// or an identity git would clean up leaves it to git.
func TestCommitTreeWritesCommitItself(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) {
			dir := testutil.Repo(t, "--object-format="+format)
			base := testutil.Commit(t, dir, map[string]string{"f": "1\n"}, "base")
			ctx := context.Background()
			r := discover(t, dir)
			tree := testutil.Git(t, dir, "rev-parse", base+"^{tree}")
			req := git.CommitRequest{Tree: tree, Parents: []string{base}, Message: "nudge snapshot\n\nnote with é\n",
				Author: git.Identity{Name: "nudge", Email: "nudge@localhost"}, Committer: git.Identity{Name: "nudge", Email: "nudge@localhost"}}
			trace := filepath.Join(t.TempDir(), "trace.json")
			t.Setenv("GIT_AUTHOR_DATE", "")
			t.Setenv("GIT_COMMITTER_DATE", "")
			os.Unsetenv("GIT_AUTHOR_DATE")
			os.Unsetenv("GIT_COMMITTER_DATE")
			t.Setenv("GIT_TRACE2_EVENT", trace)
			id, err := r.CommitTree(ctx, req)
			os.Unsetenv("GIT_TRACE2_EVENT")
			if err != nil {
				t.Fatal(err)
			}
			if traced, _ := os.ReadFile(trace); strings.Contains(string(traced), `"commit-tree"`) {
				t.Error("git commit-tree ran")
			}
			raw := testutil.Git(t, dir, "cat-file", "commit", id)
			var date string
			for _, l := range strings.Split(raw, "\n") {
				if rest, ok := strings.CutPrefix(l, "committer nudge <nudge@localhost> "); ok {
					date = rest
				}
			}
			if date == "" {
				t.Fatalf("no committer line in\n%s", raw)
			}
			// The same commit from git, at the same date (a form
			// only git parses), and from us given that date in the
			// forms we read.
			secs, tz, _ := strings.Cut(date, " ")
			for _, d := range []string{date, "@" + date, time.Unix(mustInt(t, secs), 0).UTC().Format(time.RFC3339)} {
				if !strings.HasPrefix(d, "2") && tz != "+0000" {
					continue // the RFC 3339 form is in UTC
				}
				t.Setenv("GIT_AUTHOR_DATE", d)
				t.Setenv("GIT_COMMITTER_DATE", d)
				if got, err := r.CommitTree(ctx, req); err != nil || got != id {
					t.Errorf("with date %q: %s, %v; want %s", d, got, err, id)
				}
			}
			gitForm := "@" + secs + " " + tz + " " // git reads it; we leave it to git
			t.Setenv("GIT_AUTHOR_DATE", gitForm)
			t.Setenv("GIT_COMMITTER_DATE", gitForm)
			os.Remove(trace)
			t.Setenv("GIT_TRACE2_EVENT", trace)
			again, err := r.CommitTree(ctx, req)
			os.Unsetenv("GIT_TRACE2_EVENT")
			if err != nil {
				t.Fatal(err)
			}
			if again != id {
				t.Errorf("git wrote %s, we wrote %s:\n%s", again, id, raw)
			}
			if traced, _ := os.ReadFile(trace); !strings.Contains(string(traced), `"commit-tree"`) {
				t.Error("with a date form git parses, git commit-tree did not run")
			}
			testutil.Git(t, dir, "fsck", "--strict", "--no-dangling")
		})
	}
}

func mustInt(t *testing.T, s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
