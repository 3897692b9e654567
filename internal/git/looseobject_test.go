package git_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
