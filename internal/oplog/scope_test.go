package oplog

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// finished finishes rec and returns the log, which must hold n operations.
func finished(t *testing.T, l *Log, rec *Recording, n int) []*Op {
	t.Helper()
	if err := rec.Finish(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	ops, err := l.Read(context.Background())
	if err != nil || len(ops) != n {
		t.Fatalf("log: %v, %d ops, want %d", err, len(ops), n)
	}
	return ops
}

// Each kind reads only what it can change: a task record or a git-nudge
// ref changed by someone else while git-autodev checkpoints is not
// recorded as the checkpoint's change (nor read before and after it), and
// a snapshot records the task record it writes but reads no other (t1
// changed by someone else meanwhile).
func TestRecordingReadsOnlyItsScope(t *testing.T) {
	ctx := context.Background()
	dir := testutil.Repo(t)
	c := testutil.Commit(t, dir, map[string]string{"a.txt": "a\n"}, "start")
	testutil.WriteFile(t, dir, ".nudgethis/tasks/t1.json", `{"id":"t1"}`)
	repo, err := git.Discover(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	l := Open(repo)
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

	rec, err := l.Begin(ctx, Spec{Tool: "autodev", Kind: "checkpoint", Args: []string{"checkpoint"}, Scope: ScopeCheckpoints}, now)
	if err != nil {
		t.Fatal(err)
	}
	// Someone else's change meanwhile.
	testutil.WriteFile(t, dir, ".nudgethis/tasks/t1.json", `{"id":"t1","state":"applied"}`)
	testutil.Git(t, dir, "update-ref", "refs/nudgethis/results/t1", c)
	ops := finished(t, l, rec, 1)
	if len(ops[0].Journals) != 0 || len(ops[0].Refs) != 0 {
		t.Errorf("checkpoint recorded changes outside its scope: journals %+v refs %+v", ops[0].Journals, ops[0].Refs)
	}

	rec, err = l.Begin(ctx, Spec{Tool: "nudge", Kind: "snapshot", Args: []string{"snapshot"}, Scope: ScopeSnapshot, LeavesIndex: true}, now)
	if err != nil {
		t.Fatal(err)
	}
	repo.Tx = rec // the command's repository carries its transaction
	testutil.WriteFile(t, dir, ".nudgethis/tasks/t1.json", `{"id":"t1","state":"dropped"}`)
	// The snapshot's own record, written as the command writes it.
	if err := journal.WriteBytesIn(rec, filepath.Join(dir, ".nudgethis", "tasks", "t2.json"), []byte(`{"id":"t2"}`)); err != nil {
		t.Fatal(err)
	}
	testutil.Git(t, dir, "update-ref", "refs/nudgethis/snapshots/t1", c) // someone else
	if err := repo.SetRefFast(ctx, "refs/nudgethis/snapshots/t2", c, repo.ZeroID()); err != nil {
		t.Fatal(err)
	}
	ops = finished(t, l, rec, 2)
	snap := ops[0]
	if len(snap.Journals) != 1 || snap.Journals[0].File != filepath.ToSlash(".nudgethis/tasks/t2.json") || snap.Journals[0].Old != "" {
		t.Errorf("snapshot journals = %+v, want only the new t2.json", snap.Journals)
	}
	if len(snap.Refs) != 1 || snap.Refs[0].Name != "refs/nudgethis/snapshots/t2" {
		t.Errorf("snapshot refs = %+v, want only refs/nudgethis/snapshots/t2", snap.Refs)
	}
}

// Where git's files are not read in this process, the ref a snapshot
// makes (its name told to its transaction by the git layer) is read
// through git: a reftable repository has no loose ref files. The git here predates reftable, so
// core.fsync stands in to take the same path.
func TestSnapshotRefRecordedThroughGit(t *testing.T) {
	ctx := context.Background()
	dir := testutil.Repo(t)
	c := testutil.Commit(t, dir, map[string]string{"a.txt": "a\n"}, "start")
	testutil.Git(t, dir, "config", "core.fsync", "committed")
	testutil.Git(t, dir, "update-ref", "refs/nudgethis/snapshots/t1", c)
	repo, err := git.Discover(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if repo.InProcess() {
		t.Fatal("core.fsync is set, yet git's files would be read in this process")
	}
	l := Open(repo)
	rec, err := l.Begin(ctx, Spec{Tool: "nudge", Kind: "snapshot", Args: []string{"snapshot"}, Scope: ScopeSnapshot, LeavesIndex: true}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	repo.Tx = rec
	testutil.WriteFile(t, dir, ".nudgethis/tasks/t2.json", `{"id":"t2"}`)
	if err := repo.SetRef(ctx, git.SetRefRequest{Name: "refs/nudgethis/snapshots/t2", New: c, Old: repo.ZeroID()}); err != nil {
		t.Fatal(err)
	}
	ops := finished(t, l, rec, 1)
	if refs := ops[0].Refs; len(refs) != 1 || refs[0].Name != "refs/nudgethis/snapshots/t2" || refs[0].New != c {
		t.Errorf("snapshot refs = %+v, want only the new refs/nudgethis/snapshots/t2", refs)
	}
}

// A git-nudge command other than snapshot records the task records it
// changes through its transaction (read as they were right before it
// changed them), records removed and made included, and nothing another
// process changed meanwhile: the records it never wrote are not read at
// all.
func TestRecordingNotesTheRecordsItWrites(t *testing.T) {
	ctx := context.Background()
	dir := testutil.Repo(t)
	testutil.Commit(t, dir, map[string]string{"a.txt": "a\n"}, "start")
	testutil.WriteFile(t, dir, ".nudgethis/tasks/t1.json", `{"id":"t1"}`)
	testutil.WriteFile(t, dir, ".nudgethis/tasks/t2.json", `{"id":"t2","state":"ready"}`)
	testutil.WriteFile(t, dir, ".nudgethis/tasks/t3.json", `{"id":"t3"}`)
	repo, err := git.Discover(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	l := Open(repo)
	rec, err := l.Begin(ctx, Spec{Tool: "nudge", Kind: "apply", Args: []string{"apply", "t2"}, Scope: ScopeTasks, LeavesIndex: true}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	tasks := filepath.Join(dir, ".nudgethis", "tasks")
	// Another process rewrites t1 (not through the command's
	// transaction); this one rewrites t2 twice, removes t3 and makes t4.
	testutil.WriteFile(t, dir, ".nudgethis/tasks/t1.json", `{"id":"t1","state":"dropped"}`)
	for _, s := range []string{"applying", "applied"} {
		if err := journal.WriteBytesIn(rec, filepath.Join(tasks, "t2.json"), []byte(`{"id":"t2","state":"`+s+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := journal.RemoveIn(rec, filepath.Join(tasks, "t3.json")); err != nil {
		t.Fatal(err)
	}
	if err := journal.WriteBytesIn(rec, filepath.Join(tasks, "t4.json"), []byte(`{"id":"t4"}`)); err != nil {
		t.Fatal(err)
	}
	if err := rec.Finish(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// Once finished, the recording takes nothing more.
	if err := journal.WriteBytesIn(rec, filepath.Join(tasks, "t1.json"), []byte(`{"id":"t1","state":"x"}`)); err != nil {
		t.Fatal(err)
	}
	ops, err := l.Read(ctx)
	if err != nil || len(ops) != 1 {
		t.Fatalf("log: %v, %d ops", err, len(ops))
	}
	got := map[string][2]string{}
	for _, j := range ops[0].Journals {
		var old, new string
		if j.Old != "" {
			old = testutil.Git(t, dir, "cat-file", "blob", j.Old)
		}
		if j.New != "" {
			new = testutil.Git(t, dir, "cat-file", "blob", j.New)
		}
		got[j.File] = [2]string{old, new}
	}
	want := map[string][2]string{
		".nudgethis/tasks/t2.json": {`{"id":"t2","state":"ready"}`, `{"id":"t2","state":"applied"}`},
		".nudgethis/tasks/t3.json": {`{"id":"t3"}`, ""},
		".nudgethis/tasks/t4.json": {"", `{"id":"t4"}`},
	}
	if len(got) != len(want) {
		t.Errorf("journals recorded: %q, want %q", got, want)
	}
	for f, w := range want {
		if got[f] != w {
			t.Errorf("%s: recorded %q, want %q", f, got[f], w)
		}
	}
}

// Likewise the refs: a git-nudge command that runs no task records the
// refs it changes through its transaction (read as they were right
// before), and HEAD's
// branch, and nothing another process changed meanwhile; a run (a long
// command) still records every change under its folders, what its task
// did included.
func TestRecordingNotesTheRefsItWrites(t *testing.T) {
	ctx := context.Background()
	dir := testutil.Repo(t)
	c1 := testutil.Commit(t, dir, map[string]string{"a.txt": "a\n"}, "one")
	c2 := testutil.Commit(t, dir, map[string]string{"a.txt": "b\n"}, "two")
	testutil.Git(t, dir, "update-ref", "refs/nudgethis/snapshots/t1", c1)
	testutil.Git(t, dir, "update-ref", "refs/nudgethis/results/t3", c1)
	repo, err := git.Discover(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	l := Open(repo)
	refsOf := func(op *Op) map[string][2]string {
		m := map[string][2]string{}
		for _, r := range op.Refs {
			m[r.Name] = [2]string{r.Old, r.New}
		}
		return m
	}

	rec, err := l.Begin(ctx, Spec{Tool: "nudge", Kind: "apply", Args: []string{"apply", "t2"}, Scope: ScopeTasks, LeavesIndex: true}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	repo.Tx = rec
	testutil.Git(t, dir, "update-ref", "refs/nudgethis/snapshots/t1", c2) // another process
	if err := repo.SetRef(ctx, git.SetRefRequest{Name: "refs/nudgethis/undo/t2", New: c1, Old: repo.ZeroID()}); err != nil {
		t.Fatal(err)
	}
	if err := repo.SetRefFast(ctx, "refs/nudgethis/undo/t2", c2, c1); err != nil {
		t.Fatal(err)
	}
	if err := repo.DeleteRef(ctx, "refs/nudgethis/results/t3", c1); err != nil {
		t.Fatal(err)
	}
	if err := repo.SetRef(ctx, git.SetRefRequest{Name: "refs/heads/main", New: c1, Old: c2}); err != nil {
		t.Fatal(err)
	}
	ops := finished(t, l, rec, 1)
	got := refsOf(ops[0])
	want := map[string][2]string{
		"refs/nudgethis/undo/t2":    {"", c2},
		"refs/nudgethis/results/t3": {c1, ""},
		"refs/heads/main":           {c2, c1},
	}
	if len(got) != len(want) {
		t.Errorf("refs recorded: %v, want %v", got, want)
	}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("%s: recorded %v, want %v", n, got[n], w)
		}
	}

	// A branch moved twice, first through HEAD (a reset), is recorded
	// from where it was when the command started.
	rec, err = l.Begin(ctx, Spec{Tool: "nudge", Kind: "save", Args: []string{"save"}, Scope: ScopeTasks}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	repo.Tx = rec
	if err := repo.ResetHard(ctx, c2, "test"); err != nil {
		t.Fatal(err)
	}
	if err := repo.SetRef(ctx, git.SetRefRequest{Name: "refs/heads/main", New: c1, Old: c2}); err != nil {
		t.Fatal(err)
	}
	ops = finished(t, l, rec, 2)
	if got := refsOf(ops[0]); len(got) != 0 {
		t.Errorf("a branch moved away and back recorded as %v", got)
	}

	// A run records what changed under its folders, whoever changed it.
	rec, err = l.Begin(ctx, Spec{Tool: "nudge", Kind: "run", Args: []string{"run", "--", "true"}, Scope: ScopeTasks, LeavesIndex: true, Long: true}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	testutil.Git(t, dir, "update-ref", "refs/heads/agent", c2)
	ops = finished(t, l, rec, 3)
	if got := refsOf(ops[0]); got["refs/heads/agent"] != [2]string{"", c2} {
		t.Errorf("run recorded %v, want refs/heads/agent created", got)
	}
}
