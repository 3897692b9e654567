package dashboard_test

import (
	"github.com/nudgethis/git-nudge/internal/cli/autodevcmd"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/testutil"
)

// TestBrowserRunLog: the task view's Run log panel starts closed, and
// opening it shows the log's last 64 KiB as text (markup in the log is
// shown, never interpreted), saying it is cut, without making the page
// wider than the window.
func TestBrowserRunLog(t *testing.T) {
	ctx := browser(t)
	dir := workspace(t)
	var log strings.Builder
	for log.Len() < 100<<10 {
		log.WriteString("an early line of the run\n")
	}
	log.WriteString(strings.Repeat("x", 3000) + "\n<b>bold?</b><script>window.pwned=1</script> the last line\n")
	testutil.WriteFile(t, dir, filepath.Join(".nudgethis", "logs", "t1", "run.log"), log.String())
	h := serve(t, dir)
	for _, w := range widths {
		t.Run(w.name, func(t *testing.T) {
			viewport(t, ctx, w.width, w.height)
			navigate(t, ctx, h.srv.URL("tasks"))
			waitFor(t, ctx, "task t1", `document.querySelector('#tasks tbody tr[data-id="t1"]') !== null`)
			click(t, ctx, `#tasks tbody tr[data-id="t1"]`)
			waitFor(t, ctx, "the closed Run log panel", `document.querySelector('#runlog') !== null && !document.querySelector('#runlog').open && document.querySelector('#runlog-text') === null`)
			click(t, ctx, "#runlog summary")
			waitFor(t, ctx, "the log's tail", textOf("#runlog-text")+`.endsWith("<b>bold?</b><script>window.pwned=1</script> the last line\n")`)
			waitFor(t, ctx, "the text not interpreted", `document.querySelector('#runlog-text').children.length === 0 && window.pwned === undefined`)
			waitFor(t, ctx, "only the tail", textOf("#runlog-text")+`.length === 65536 && `+textOf("#runlog-what")+`.startsWith("The last 64 KiB of ")`)
			waitFor(t, ctx, "the log's path", textOf("#runlog-what")+`.includes(".nudgethis/logs/t1/run.log")`)
			noOverflow(t, ctx, "the run log open")
			screenshot(t, ctx, "dashboard-runlog-"+w.name+".png")
		})
	}
}

// TestLogTailBounds: the log API reads at most the asked tail, refuses a
// tail out of bounds, and answers exists=false for a task without a log.
func TestLogTailBounds(t *testing.T) {
	t.Parallel()
	dir := workspace(t)
	testutil.WriteFile(t, dir, filepath.Join(".nudgethis", "logs", "t1", "run.log"), "0123456789")
	h := serve(t, dir)
	if code, _, body := h.do("GET", "/api/nudge/tasks/t1/log?tail=4", true, nil); code != 200 || !strings.Contains(string(body), `"tail":"6789"`) || !strings.Contains(string(body), `"cut":true`) {
		t.Fatalf("tail=4: %d %s", code, body)
	}
	for _, q := range []string{"0", "-1", "x", "1048577"} {
		if code, _, body := h.do("GET", "/api/nudge/tasks/t1/log?tail="+q, true, nil); code != 400 {
			t.Errorf("tail=%s: %d, want 400\n%s", q, code, body)
		}
	}
	if code, _, body := h.do("GET", "/api/nudge/tasks/t9/log", true, nil); code != 404 {
		t.Errorf("an unknown task's log: %d, want 404\n%s", code, body)
	}
	if code, _, body := h.do("GET", "/api/nudge/tasks/..%2F..%2Fx/log", true, nil); code == 200 {
		t.Errorf("a path for an id: %d\n%s", code, body)
	}
}

// TestBrowserNeedsYouDeadOpsAndParked: Needs you names an operation
// whose process was killed (op log's Recovery required) and the work a
// failed restore parked on an autodev/pre-restore-* branch that no
// checkpoint records (what git autodev status names).
func TestBrowserNeedsYouDeadOpsAndParked(t *testing.T) {
	ctx := browser(t)
	dir := interrupted(t) // a killed git nudge apply t1
	testutil.WriteFile(t, dir, "b.txt", "b\n")
	autodev(t, dir, "checkpoint", "-m", "add b")
	testutil.WriteFile(t, dir, "b.txt", "b, second take\n")
	autodev(t, dir, "checkpoint", "-m", "rework b")
	// A restore that parks the work, then fails: .git/index.lock is not
	// autodev's.
	testutil.WriteFile(t, dir, "b.txt", "uncommitted\n")
	testutil.WriteFile(t, dir, filepath.Join(".git", "index.lock"), "")
	if out, code := run(t, autodevcmd.Main, dir, "restore", "c1"); code == 0 {
		t.Fatalf("the restore did not fail after parking: exit %d\n%q", code, out)
	}
	if err := os.Remove(filepath.Join(dir, ".git", "index.lock")); err != nil {
		t.Fatal(err)
	}
	status := autodev(t, dir, "status")
	_, branch, ok := strings.Cut(status, "Parked work not in the checkpoint list: ")
	branch, _, _ = strings.Cut(branch, " ")
	if !ok || !strings.HasPrefix(branch, "autodev/pre-restore-") {
		t.Fatalf("status names no parked work:\n%s", status)
	}
	ops := nudge(t, dir, "op", "log")
	dead, _, _ := strings.Cut(ops, " ")
	if !strings.Contains(ops, "Recovery required") || !strings.HasPrefix(dead, "p") {
		t.Fatalf("op log shows no killed operation:\n%s", ops)
	}
	h := serve(t, dir)
	for _, w := range widths {
		t.Run(w.name, func(t *testing.T) {
			viewport(t, ctx, w.width, w.height)
			navigate(t, ctx, h.srv.URL("checkpoints"))
			waitFor(t, ctx, "Needs you shown", `!document.querySelector('#needs-you').hidden`)
			waitFor(t, ctx, "the killed operation", textOf(`#needs-list li.dead-op[data-id="`+dead+`"]`)+`.startsWith("Operation `+dead+` was killed: Recovery required. git nudge apply t1") && `+textOf(`#needs-list li.dead-op`)+`.includes("git nudge recover t1")`)
			waitFor(t, ctx, "the parked branch", textOf(`#needs-list li.parked`)+`.includes("Parked work not in the checkpoint list: `+branch+` (") && `+textOf(`#needs-list li.parked`)+`.includes("git branch -D `+branch+` deletes it")`)
			noOverflow(t, ctx, "Needs you at "+w.name)
			screenshot(t, ctx, "dashboard-needs-you-"+w.name+".png")
		})
	}
}

// TestBrowserAttempts: a task of run --attempts shows its sibling
// attempts side by side (state, files, +/-), each linking to its task.
func TestBrowserAttempts(t *testing.T) {
	ctx := browser(t)
	dir := testutil.Repo(t)
	testutil.Commit(t, dir, map[string]string{"a.txt": "old\n"}, "first")
	nudge(t, dir, "run", "--attempts", "2", "--", "sh", "-c", `i=0; while [ $i -lt $NUDGE_ATTEMPT ]; do echo line$i >> a.txt; i=$((i+1)); done; echo x > attempt$NUDGE_ATTEMPT.txt`)
	h := serve(t, dir)
	for _, w := range widths {
		t.Run(w.name, func(t *testing.T) {
			viewport(t, ctx, w.width, w.height)
			navigate(t, ctx, h.srv.URL("tasks"))
			waitFor(t, ctx, "task t1", `document.querySelector('#tasks tbody tr[data-id="t1"]') !== null`)
			click(t, ctx, `#tasks tbody tr[data-id="t1"]`)
			row := func(id string) string { return textOf(`#attempts tbody tr[data-id="` + id + `"]`) }
			waitFor(t, ctx, "t1's attempts", row("t1")+` === "1t1 (this one)ready2 files+2 −0none" && `+row("t2")+` === "2t2ready2 files+3 −0none"`)
			noOverflow(t, ctx, "attempts at "+w.name)
			screenshot(t, ctx, "dashboard-attempts-"+w.name+".png")
			click(t, ctx, `#attempts tbody tr[data-id="t2"] a`)
			waitFor(t, ctx, "t2 opened from the attempts", textOf("#task-title")+`.startsWith("t2") && `+row("t2")+`.includes("t2 (this one)")`)
		})
	}
}
