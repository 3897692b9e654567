package nudgecmd_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/cli/clitest"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// start, capture and validate by hand: the worktree's path on stdout,
// the result recorded, validation run on it.
func TestStartCaptureValidate(t *testing.T) {
	t.Parallel()
	r, dir := workspace(t)
	res := r.OK(t, "start", "-m", "by hand")
	wt := filepath.Join(dir, ".nudgethis", "worktrees", "t1")
	if res.Stdout != wt+"\n" {
		t.Errorf("start: %q, want the worktree's path", res.Stdout)
	}
	testutil.WriteFile(t, wt, "a.txt", "edited\n")
	res = r.OK(t, "capture", "t1", "--keep-worktree")
	if !strings.HasPrefix(res.Stdout, "t1 ready: result ") || !strings.HasSuffix(res.Stdout, ", 1 file changed\n") {
		t.Errorf("capture: %s", res)
	}
	// No validation configured: validate refuses and says how to add one.
	res = r.Fails(t, 1, "validate", "t1")
	res.HasStderr(t, "git nudge: cannot validate t1: no validation command is configured", "git config --add nudge.validate")
	testutil.Git(t, dir, "config", "nudge.validate", `grep -q edited a.txt`)
	res = r.OK(t, "validate", "t1")
	if !strings.HasPrefix(res.Stdout, "t1: validation passed\n  ok  ") || !strings.HasSuffix(res.Stdout, "  grep -q edited a.txt\n") {
		t.Errorf("validate: %s", res)
	}
	var task map[string]any
	r.JSON(t, &task, "show", "t1", "--json")
	if v, _ := task["validation"].(map[string]any); v == nil || v["state"] != "passed" {
		t.Errorf("validation recorded: %v", task["validation"])
	}
	r.OK(t, "list").HasStdout(t, "t1  ready (validated)  ")
	// A failing validation fails the command and marks the task.
	testutil.Git(t, dir, "config", "nudge.validate", "false")
	r.Fails(t, 1, "validate", "t1")
	r.OK(t, "list").HasStdout(t, "t1  ready (validation failed)  ")
	r.Fails(t, 1, "apply", "t1").HasStderr(t, "--unvalidated")
	r.OK(t, "apply", "t1", "--unvalidated")
	if clitest.ReadFile(t, dir, "a.txt") != "edited\n" {
		t.Errorf("apply --unvalidated did not write a.txt")
	}
}

// The programs a command starts get the environment the command was
// given (Env.Environ), not the test process's.
func TestProgramsGetTheCommandsEnvironment(t *testing.T) {
	t.Parallel()
	r, dir := workspace(t)
	withVar := *r
	withVar.Vars = map[string]string{"CMDTEST_VALUE": "from-env"}
	res := withVar.OK(t, "run", "--", "sh", "-c", `printf '%s\n' "$CMDTEST_VALUE" > v.txt; echo "task $NUDGE_TASK"`)
	if res.Stdout != "task t1\n" {
		t.Errorf("run's output: %s", res)
	}
	if got := testutil.Git(t, dir, "show", "refs/nudgethis/results/t1:v.txt"); got != "from-env" {
		t.Errorf("the command saw CMDTEST_VALUE=%q", got)
	}
	// Setup commands (nudge.setup) get it too.
	testutil.Git(t, dir, "config", "nudge.setup", `printf '%s\n' "$CMDTEST_VALUE" > setup.txt`)
	res = withVar.OK(t, "start", "--keep-worktree")
	if got := clitest.ReadFile(t, strings.TrimSuffix(res.Stdout, "\n"), "setup.txt"); got != "from-env\n" {
		t.Errorf("setup saw CMDTEST_VALUE=%q", got)
	}
}

func TestQueueWork(t *testing.T) {
	t.Parallel()
	r, dir := workspace(t)
	res := r.OK(t, "queue", "-m", "later", "--", "sh", "-c", "printf 'q\\n' > q.txt")
	if res.Stdout != "t1 pending: git nudge work runs it\n" {
		t.Errorf("queue: %q", res.Stdout)
	}
	r.OK(t, "list").HasStdout(t, "t1  pending  just now  -      main    later\n")
	res = r.OK(t, "show", "t1")
	res.HasStdout(t, "snapshot:   (taken when git nudge work starts the task)\n")
	var rep struct {
		Ran []struct {
			ID       string `json:"id"`
			State    string `json:"state"`
			ExitCode *int   `json:"exit_code"`
		} `json:"ran"`
		Interrupted bool `json:"interrupted"`
		Pending     int  `json:"pending"`
	}
	res = r.JSON(t, &rep, "work", "--json")
	if len(rep.Ran) != 1 || rep.Ran[0].ID != "t1" || rep.Ran[0].State != "ready" || rep.Ran[0].ExitCode == nil || *rep.Ran[0].ExitCode != 0 || rep.Pending != 0 || rep.Interrupted {
		t.Errorf("work --json: %+v", rep)
	}
	res.HasStderr(t, "git nudge work: t1 started\n", "git nudge work: t1 ready\n")
	if got := testutil.Git(t, dir, "show", "refs/nudgethis/results/t1:q.txt"); got != "q" {
		t.Errorf("the queued command's result: %q", got)
	}
	r.Fails(t, 2, "queue", "-m", "x").HasStderr(t, "Run 'git nudge queue -h' for usage.")
}

func TestPool(t *testing.T) {
	t.Parallel()
	r, dir := workspace(t)
	res := r.OK(t, "pool")
	res.HasStdout(t, "0 of 2 pooled worktrees (nudge.pool)")
	res = r.OK(t, "pool", "fill")
	if want := "Added p1 to the pool: " + filepath.Join(dir, ".nudgethis", "pool", "p1") + "\n"; res.Stdout != want {
		t.Errorf("pool fill: %q, want %q", res.Stdout, want)
	}
	var doc struct {
		Bound     int   `json:"bound"`
		MaxBytes  int64 `json:"max_bytes"`
		Bytes     int64 `json:"bytes"`
		Worktrees []struct {
			Name  string `json:"name"`
			Path  string `json:"path"`
			Bytes int64  `json:"bytes"`
		} `json:"worktrees"`
	}
	r.JSON(t, &doc, "pool", "list", "--json")
	if doc.Bound != 2 || len(doc.Worktrees) != 1 || doc.Worktrees[0].Name != "p1" || doc.Bytes != doc.Worktrees[0].Bytes {
		t.Errorf("pool list --json: %+v", doc)
	}
	res = r.OK(t, "pool", "clear")
	if res.Stdout != "Removed 1 pooled worktrees.\n" {
		t.Errorf("pool clear: %q", res.Stdout)
	}
	r.JSON(t, &doc, "pool", "--json")
	if len(doc.Worktrees) != 0 {
		t.Errorf("pool after clear: %+v", doc)
	}
}

func TestRefresh(t *testing.T) {
	t.Parallel()
	r, dir := workspace(t)
	id := ranTask(t, r, "b", "printf 'B\\n' > b.txt")
	testutil.Commit(t, dir, map[string]string{"c.txt": "c\n"}, "moved on")
	res := r.OK(t, "refresh", id)
	if want := "Refreshed t1 as t2: its change merged onto the workspace as it is now, 1 file changed.\n" +
		"t2 is ready and t1 is unchanged. Review with git nudge diff t2, then git nudge apply t2.\n"; res.Stdout != want {
		t.Errorf("refresh:\n%q\nwant\n%q", res.Stdout, want)
	}
	var t1, t2 map[string]any
	r.JSON(t, &t1, "show", id, "--json")
	r.JSON(t, &t2, "show", "t2", "--json")
	if t1["state"] != "ready" || t2["state"] != "ready" || t2["snapshot"] != testutil.Git(t, dir, "rev-parse", "HEAD") || t2["snapshot"] == t1["snapshot"] {
		t.Errorf("after refresh: t1 %v %v, t2 %v %v", t1["state"], t1["snapshot"], t2["state"], t2["snapshot"])
	}
	r.OK(t, "apply", "t2")
	if clitest.ReadFile(t, dir, "b.txt") != "B\n" {
		t.Errorf("b.txt after applying the refreshed task: %q", clitest.ReadFile(t, dir, "b.txt"))
	}
	r.OK(t, "show", "t2").HasStdout(t, "refreshed:  from t1 ")
}

func TestDashboardStop(t *testing.T) {
	t.Parallel()
	r, _ := workspace(t)
	res := r.OK(t, "dashboard", "--stop")
	if res.Stdout != "No dashboard runs for this workspace.\n" {
		t.Errorf("dashboard --stop: %s", res)
	}
	clitest.Usage(t, r.Run(t, "dashboard", "--port", "x"), "git nudge dashboard")
}
