package commitgraph

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/testutil"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// The files git writes, as one file and as a chain of layers, are found,
// and a commit is listed exactly when git wrote it into one of them, in
// both hash formats.
func TestListsWhatGitWrote(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) {
			dir := testutil.Repo(t, "--object-format="+format)
			info := filepath.Join(dir, ".git", "objects", "info")
			var ids []string
			for i := range 5 {
				ids = append(ids, strings.TrimSpace(testutil.Commit(t, dir, map[string]string{"f": strings.Repeat("x", i)}, "c")))
			}
			if files, chain := Files(info); len(files) != 0 || chain {
				t.Fatalf("before git wrote a graph: %v, chain %v", files, chain)
			}
			testutil.Git(t, dir, "commit-graph", "write", "--reachable", "--no-progress")
			files, chain := Files(info)
			if len(files) != 1 || chain {
				t.Fatalf("one file written: found %v, chain %v", files, chain)
			}
			absent := strings.Repeat("0", len(ids[0]))
			for _, id := range ids {
				if !ListsAny(files, []string{absent, id}) {
					t.Errorf("%s is in the graph git wrote; ListsAny says no", id)
				}
			}
			if ListsAny(files, []string{absent}) || ListsAny(files, nil) {
				t.Error("a commit not in the graph (or none) is listed")
			}
			later := strings.TrimSpace(testutil.Commit(t, dir, nil, "later"))
			if ListsAny(files, []string{later}) {
				t.Error("a commit made after the graph was written is listed")
			}
			testutil.Git(t, dir, "commit-graph", "write", "--reachable", "--split=replace", "--no-progress")
			files, chain = Files(info)
			if len(files) == 0 || !chain {
				t.Fatalf("a chain written: found %v, chain %v", files, chain)
			}
			if !ListsAny(files, []string{later}) || ListsAny(files, []string{absent}) {
				t.Error("the chain's layers are not read as git wrote them")
			}
		})
	}
}

// A file that is not a commit graph counts as listing the commits (the
// caller has git write the graph again); a layer gone meanwhile lists
// nothing.
func TestUnreadableListsAndGoneDoesNot(t *testing.T) {
	dir := t.TempDir()
	id := strings.Repeat("ab", 20)
	bad := filepath.Join(dir, "commit-graph")
	if err := os.WriteFile(bad, []byte("not a graph"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !ListsAny([]string{bad}, []string{id}) {
		t.Error("an unreadable file does not count as listing the commit")
	}
	if ListsAny([]string{filepath.Join(dir, "gone.graph")}, []string{id}) {
		t.Error("a file that is gone lists the commit")
	}
}
