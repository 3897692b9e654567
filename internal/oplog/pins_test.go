package oplog

import (
	"context"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// git-autodev's recording reads the checkpoint refs the command makes
// (the checkpoint's pin, told to its transaction by the git layer), not
// every existing pin before and after, so an existing pin changed
// meanwhile by someone else is not recorded as the checkpoint's change,
// while the branch move and the new pin are. Where git's files are not read in this process
// (core.fsync stands in for reftable), the refs are read through git and
// the new one is still recorded.
func TestAutodevRecordsOnlyNewPins(t *testing.T) {
	for _, inProcess := range []bool{true, false} {
		name := "in process"
		if !inProcess {
			name = "through git"
		}
		t.Run(name, func(t *testing.T) { testAutodevPins(t, inProcess) })
	}
}

func testAutodevPins(t *testing.T, inProcess bool) {
	ctx := context.Background()
	dir := testutil.Repo(t)
	if !inProcess {
		testutil.Git(t, dir, "config", "core.fsync", "committed")
	}
	c1 := testutil.Commit(t, dir, map[string]string{"a.txt": "a\n"}, "one")
	for _, id := range []string{"c1", "c2", "c3"} {
		testutil.Git(t, dir, "update-ref", "refs/autodev/checkpoints/"+id, c1)
	}
	repo, err := git.Discover(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	l := Open(repo)
	rec, err := l.Begin(ctx, Spec{Tool: "autodev", Kind: "checkpoint", Args: []string{"checkpoint"}, Scope: ScopeCheckpoints}, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	repo.Tx = rec
	c2 := testutil.Commit(t, dir, map[string]string{"a.txt": "b\n"}, "two")
	if err := repo.SetRef(ctx, git.SetRefRequest{Name: "refs/autodev/checkpoints/c4", New: c2, Old: repo.ZeroID()}); err != nil {
		t.Fatal(err)
	}
	testutil.Git(t, dir, "update-ref", "refs/autodev/checkpoints/c2", c2) // not the checkpoint's doing
	if err := rec.Finish(ctx, nil); err != nil {
		t.Fatal(err)
	}
	ops, err := l.Read(ctx)
	if err != nil || len(ops) != 1 {
		t.Fatalf("log: %v, %d ops", err, len(ops))
	}
	got := map[string]RefChange{}
	for _, r := range ops[0].Refs {
		got[r.Name] = r
	}
	if r := got["refs/autodev/checkpoints/c4"]; r.Old != "" || r.New != c2 {
		t.Errorf("new pin recorded as %+v", r)
	}
	if r := got["refs/heads/main"]; r.Old != c1 || r.New != c2 {
		t.Errorf("branch recorded as %+v", r)
	}
	if r, ok := got["refs/autodev/checkpoints/c2"]; ok {
		t.Errorf("another process's change to an existing pin recorded: %+v", r)
	}
	if len(got) != 2 {
		t.Errorf("refs recorded: %+v", ops[0].Refs)
	}
}
