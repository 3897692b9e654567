package opcmd_test

import (
	"os"
	"testing"

	"github.com/nudgethis/git-nudge/internal/cli/autodevcmd"
	"github.com/nudgethis/git-nudge/internal/cli/clitest"
	"github.com/nudgethis/git-nudge/internal/cli/nudgecmd"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// Both binaries record into, list and undo one log per worktree.
func TestOneLogForBothBinaries(t *testing.T) {
	dir := testutil.Repo(t)
	testutil.Commit(t, dir, map[string]string{"a.txt": "one\n"}, "first")
	nudge := &clitest.Runner{Main: nudgecmd.Main, Dir: dir}
	autodev := &clitest.Runner{Main: autodevcmd.Main, Dir: dir}
	testutil.WriteFile(t, dir, "a.txt", "two\n")
	nudge.OK(t, "snapshot")
	autodev.OK(t, "checkpoint", "-m", "turn")
	type op struct {
		ID   string `json:"id"`
		Tool string `json:"tool"`
		Kind string `json:"kind"`
	}
	for _, r := range []*clitest.Runner{nudge, autodev} {
		var ops []op
		r.JSON(t, &ops, "op", "log", "--json")
		if len(ops) != 2 || ops[0] != (op{"o2", "autodev", "checkpoint"}) || ops[1] != (op{"o1", "nudge", "snapshot"}) {
			t.Errorf("op log --json: %+v", ops)
		}
	}
	// git nudge op undo takes back git autodev's checkpoint: HEAD and the
	// work tree as they were before it.
	res := nudge.OK(t, "op", "undo")
	res.HasStdout(t, "Undid o2 (checkpoint) as o3", "git nudge op redo re-does it")
	if got := testutil.Git(t, dir, "log", "-1", "--format=%s"); got != "first" {
		t.Errorf("HEAD after undoing the checkpoint: %q", got)
	}
	if got := testutil.Git(t, dir, "status", "--porcelain"); got != " M a.txt" {
		t.Errorf("status after undoing the checkpoint: %q", got)
	}
	res = autodev.OK(t, "op", "show", "o3")
	res.HasStdout(t, "git nudge op undo\n", "kind op-undo, done: undid o2")
}
