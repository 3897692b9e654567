package refs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// Twenty processes allocating at the same moment get twenty different ids,
// t1 to t20, each pinned by its ref.
func TestAllocateAcrossProcesses(t *testing.T) {
	t.Parallel()
	dir := testutil.Repo(t)
	commit := testutil.Commit(t, dir, map[string]string{"f": "1\n"}, "one")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const n = 20
	type proc struct {
		cmd *exec.Cmd
		out bytes.Buffer
		err bytes.Buffer
	}
	procs := make([]*proc, n)
	var gates []interface{ Close() error }
	for i := range procs {
		p := &proc{cmd: exec.Command(exe, "-test.run=^$")}
		p.cmd.Env = append(os.Environ(), helperEnv+"=allocate "+dir+" "+commit)
		p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.err
		gate, err := p.cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		gates = append(gates, gate)
		procs[i] = p
	}
	for _, g := range gates { // start line: every helper is running
		g.Close()
	}
	var ids []string
	for i, p := range procs {
		if err := p.cmd.Wait(); err != nil {
			t.Errorf("helper %d: %v\n%s", i, err, p.err.String())
			continue
		}
		ids = append(ids, strings.TrimSpace(p.out.String()))
	}
	sort.Slice(ids, func(i, j int) bool {
		a, _ := refs.Task.Number(ids[i])
		b, _ := refs.Task.Number(ids[j])
		return a < b
	})
	var want []string
	for i := 1; i <= n; i++ {
		want = append(want, fmt.Sprintf("t%d", i))
	}
	if strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Fatalf("allocated ids %v, want %v", ids, want)
	}
	listed := testutil.Git(t, dir, "for-each-ref", "--format=%(refname) %(objectname)", refs.Snapshots)
	if got := strings.Count(listed, " "+commit); got != n {
		t.Errorf("%d refs under %s point at the commit, want %d:\n%s", got, refs.Snapshots, n, listed)
	}
	for _, id := range want {
		if !strings.Contains(listed+"\n", refs.Task.Ref(id)+" "+commit+"\n") {
			t.Errorf("ref %s missing", refs.Task.Ref(id))
		}
	}
}

func TestAllocateInProcess(t *testing.T) {
	t.Parallel()
	dir := testutil.Repo(t)
	commit := testutil.Commit(t, dir, map[string]string{"f": "1\n"}, "one")
	ctx := context.Background()
	r, err := git.Discover(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	alloc := func(k refs.Kind, minNext int) string {
		t.Helper()
		id, err := k.Allocate(ctx, r, commit, minNext)
		if err != nil {
			t.Fatalf("Allocate: %v", err)
		}
		return id
	}
	if id := alloc(refs.Task, 0); id != "t1" {
		t.Errorf("first task id = %s, want t1", id)
	}
	if id := alloc(refs.Checkpoint, 0); id != "c1" {
		t.Errorf("first checkpoint id = %s, want c1 (kinds count separately)", id)
	}
	// An id known elsewhere (a journal) is skipped with minNext.
	if id := alloc(refs.Task, 7); id != "t7" {
		t.Errorf("with minNext 7, id = %s, want t7", id)
	}
	if id := alloc(refs.Task, 0); id != "t8" {
		t.Errorf("after t7, id = %s, want t8", id)
	}
	// A ref someone else made at the next number is not reused.
	testutil.Git(t, dir, "update-ref", refs.Task.Ref("t9"), commit)
	// Foreign names in the folder do not disturb the numbering.
	testutil.Git(t, dir, "update-ref", refs.Snapshots+"t0100x", commit)
	testutil.Git(t, dir, "update-ref", refs.Snapshots+"notes", commit)
	if id := alloc(refs.Task, 0); id != "t10" {
		t.Errorf("after t9, id = %s, want t10", id)
	}
	if h, err := refs.Task.Highest(ctx, r); err != nil || h != 10 {
		t.Errorf("Highest = %d, %v; want 10", h, err)
	}
	// In a linked worktree the ids continue: refs are shared.
	linked := filepath.Join(testutil.RealTempDir(t), "wt")
	testutil.Git(t, dir, "worktree", "add", "-q", "--detach", linked)
	rl, err := git.Discover(ctx, linked)
	if err != nil {
		t.Fatal(err)
	}
	if id, err := refs.Task.Allocate(ctx, rl, commit, 0); err != nil || id != "t11" {
		t.Errorf("Allocate in a linked worktree = %s, %v; want t11", id, err)
	}
}

// A failure that is not a lost race ends the allocation at once with git's
// message instead of trying a thousand numbers.
func TestAllocateReportsRealErrors(t *testing.T) {
	t.Parallel()
	dir := testutil.Repo(t)
	commit := testutil.Commit(t, dir, map[string]string{"f": "1\n"}, "one")
	ctx := context.Background()
	r, err := git.Discover(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	// A ref where the folder should be: no id can be created under it.
	testutil.Git(t, dir, "update-ref", strings.TrimSuffix(refs.Checkpoints, "/"), commit)
	_, err = refs.Checkpoint.Allocate(ctx, r, commit, 0)
	var ge *git.Error
	if err == nil || errors.Is(err, git.ErrRefConflict) || !errors.As(err, &ge) {
		t.Fatalf("Allocate under a ref-file clash = %v, want git's own error", err)
	}
	if !strings.Contains(ge.Stderr, "refs/autodev/checkpoints") {
		t.Errorf("error does not carry git's message: %v", err)
	}
	// An object that does not exist is refused too.
	if _, err := refs.Task.Allocate(ctx, r, strings.Repeat("1", 40), 0); err == nil {
		t.Error("Allocate of a missing object succeeded")
	}
}

func TestValid(t *testing.T) {
	t.Parallel()
	good := []string{"t1", "t9", "t10", "t123456789"}
	bad := []string{
		"", "t", "t0", "t01", "t00", "t-1", "t+1", "t 1", "t1 ", " t1", "T1", "c1", "tt1",
		"t1234567890", "../x", "t1/../t2", "t1/", "/t1", "t1\n", "t1.lock", "t1x", "t١", "t１",
		"refs/nudgethis/snapshots/t1", "t1\x00", "t0x1", "t1e3",
	}
	for _, id := range good {
		if !refs.Task.Valid(id) {
			t.Errorf("Task.Valid(%q) = false, want true", id)
		}
		if refs.Checkpoint.Valid(id) {
			t.Errorf("Checkpoint.Valid(%q) = true, want false", id)
		}
	}
	for _, id := range bad {
		if refs.Task.Valid(id) {
			t.Errorf("Task.Valid(%q) = true, want false", id)
		}
	}
	if !refs.Checkpoint.Valid("c42") || refs.Checkpoint.Ref("c42") != "refs/autodev/checkpoints/c42" {
		t.Error("Checkpoint c42 is not valid or has the wrong ref")
	}
	if refs.Task.Ref("t3") != "refs/nudgethis/snapshots/t3" {
		t.Errorf("Task.Ref(t3) = %s", refs.Task.Ref("t3"))
	}
}
