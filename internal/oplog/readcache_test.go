package oplog

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// A process that reads the log again (the dashboard) keeps what it read:
// each later read must still list exactly the operations the log holds,
// as a read that starts afresh does, while the log grows, hands chains
// to segments (their records moved to kept packs) and drops the oldest.
// The full run records 60 operations; the fast tier (-short) 40, the
// oldest segments dropped from the 21st on.
func TestReadKeepsUpWithTheLog(t *testing.T) {
	ctx := context.Background()
	dir, repo, l, c1 := smallLog(t)
	ids := func(ops []*Op) string {
		s := ""
		for _, o := range ops {
			s += o.ID + " " + o.State + ","
		}
		return s
	}
	ops := 60
	if testing.Short() {
		ops = 40
	}
	for i := 1; i <= ops; i++ {
		op := &Op{Time: time.Now(), Tool: "autodev", Kind: "checkpoint", State: Done, Summary: "step " + strconv.Itoa(i),
			Refs: []RefChange{{Name: "refs/autodev/checkpoints/c" + strconv.Itoa(i), New: c1}}}
		if err := l.append(ctx, op, nil); err != nil {
			t.Fatal(err)
		}
		if err := l.prune(ctx, op); err != nil {
			t.Fatal(err)
		}
		got, err := l.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// A fresh read: nothing kept.
		readCache.Lock()
		readCache.chains, readCache.records, readCache.size = nil, nil, 0
		readCache.Unlock()
		fresh, err := Open(repo).Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ids(got) != ids(fresh) {
			t.Fatalf("after o%d the kept read lists %s, a fresh one %s", i, ids(got), ids(fresh))
		}
		if got[0].ID != "o"+strconv.Itoa(i) || got[0].Summary != "step "+strconv.Itoa(i) {
			t.Fatalf("after o%d the newest read is %s (%s)", i, got[0].ID, got[0].Summary)
		}
		if i > 30 && (len(got) < 20 || len(got) > 22) {
			t.Fatalf("after o%d the log lists %d operations, want 20 to 22", i, len(got))
		}
	}
	if out := testutil.Git(t, dir, "fsck", "--strict"); out != "" {
		t.Fatalf("git fsck: %s", out)
	}
}

// A commit-graph written while a segment was kept lists its records;
// dropping the segment deletes them, and the graph is written again so
// that git fsck stays clean, for a single graph file and for a chain.
// The full run records 80 operations and checks with git fsck after each;
// the fast tier (-short) records 40 (segments are dropped from the 21st
// on) and checks after each one that dropped a segment, the moment the
// graph could go stale, and after the last.
func TestDroppedSegmentsLeaveTheCommitGraphTrue(t *testing.T) {
	for _, layout := range [][]string{{"commit-graph", "write", "--reachable"}, {"commit-graph", "write", "--reachable", "--split"}} {
		t.Run(layout[len(layout)-1], func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dir, repo, l, c1 := smallLog(t)
			ops, drops := 80, 0
			if testing.Short() {
				ops = 40
			}
			for i := 1; i <= ops; i++ {
				op := &Op{Time: time.Now(), Tool: "autodev", Kind: "checkpoint", State: Done, Summary: "step " + strconv.Itoa(i),
					Refs: []RefChange{{Name: "refs/autodev/checkpoints/c" + strconv.Itoa(i), New: c1}}}
				if err := l.append(ctx, op, nil); err != nil {
					t.Fatal(err)
				}
				before, err := l.segments(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if err := l.prune(ctx, op); err != nil {
					t.Fatal(err)
				}
				after, err := l.segments(ctx)
				if err != nil {
					t.Fatal(err)
				}
				dropped := len(before) > 0 && (len(after) == 0 || after[0].name != before[0].name)
				if dropped {
					drops++
				}
				if i%5 == 0 {
					testutil.Git(t, dir, layout...)
				}
				if !testing.Short() || dropped || i == ops {
					if out := testutil.Git(t, dir, "fsck", "--strict", "--no-dangling"); out != "" {
						t.Fatalf("after o%d, git fsck: %s", i, out)
					}
				}
			}
			if drops == 0 {
				t.Fatal("no segment was dropped: the test did not test")
			}
			t.Logf("%d operations, %d of them dropped a segment", ops, drops)
			if files, _ := repo.CommitGraphFiles(); len(files) == 0 {
				t.Fatal("no commit-graph left: the test did not test")
			}
			testutil.Git(t, dir, "commit-graph", "verify")
		})
	}
}

// smallLog is the operation log of a new repository with one commit (c1)
// and op.keep 20, so that a test of a few dozen operations sees segments
// handed on and dropped.
func smallLog(t *testing.T) (dir string, repo *git.Repo, l *Log, c1 string) {
	t.Helper()
	dir = testutil.Repo(t)
	c1 = testutil.Commit(t, dir, map[string]string{"a.txt": "a\n"}, "one")
	testutil.Git(t, dir, "config", "op.keep", "20")
	repo, err := git.Discover(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, repo, Open(repo), c1
}
