package nudgecmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/cli/clitest"
	"github.com/nudgethis/git-nudge/internal/cli/nudgecmd"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// workspace is a repository on main with one commit (a.txt "one",
// b.txt "bee") and a runner of git nudge in its work tree.
func workspace(t *testing.T) (*clitest.Runner, string) {
	t.Helper()
	return clitest.InRepo(t, nudgecmd.Main, map[string]string{"a.txt": "one\n", "b.txt": "bee\n"})
}

// ranTask runs script with git nudge run in a new task of the workspace
// and returns the task's id.
func ranTask(t *testing.T, r *clitest.Runner, note, script string) string {
	t.Helper()
	return ranTaskExit(t, r, 0, note, script)
}

// ranTaskExit is ranTask for a script that exits with code (git nudge run
// exits with it too).
func ranTaskExit(t *testing.T, r *clitest.Runner, code int, note, script string) string {
	t.Helper()
	r.Fails(t, code, "run", "-m", note, "--", "sh", "-c", script)
	var tasks []map[string]any
	r.JSON(t, &tasks, "list", "--json")
	if len(tasks) == 0 {
		t.Fatal("no task after git nudge run")
	}
	return tasks[0]["id"].(string)
}

// changeTask is a ready task that sets a.txt to "two" and adds new.txt.
func changeTask(t *testing.T, r *clitest.Runner) string {
	t.Helper()
	return ranTask(t, r, "change a", "printf 'two\\n' > a.txt && printf 'new\\n' > new.txt")
}

func keys(m map[string]any) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return strings.Join(sortStrings(ks), ",")
}

func sortStrings(s []string) []string {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

// A command line kong refuses is a usage error (exit 2) that names the
// command's own help, prints nothing on stdout (without --json) and leaves
// the repository as it was: no .nudgethis folder appears.
func TestUsageErrorsNameTheCommandsHelp(t *testing.T) {
	t.Parallel()
	r, dir := workspace(t)
	for _, c := range []struct {
		args []string
		help string // the command whose help the message points to
		says string
	}{
		{[]string{"apply"}, "git nudge apply", `expected "<id>"`},
		{[]string{"undo"}, "git nudge undo", `expected "<id>"`},
		{[]string{"show"}, "git nudge show", `expected "<id>"`},
		{[]string{"recover"}, "git nudge recover", `expected "<id>"`},
		{[]string{"diff"}, "git nudge diff", `expected "<id>`},
		{[]string{"drop"}, "git nudge drop", `expected "<id> ..."`},
		{[]string{"compare"}, "git nudge compare", `expected "<id> ..."`},
		{[]string{"comment"}, "git nudge comment", `expected "<id>"`},
		{[]string{"diff", "t1", "--stat", "--name-status"}, "git nudge diff", "--stat and --name-status can't be used together"},
		{[]string{"run", "--sandbox", "--no-sandbox", "--", "true"}, "git nudge run", "--sandbox and --no-sandbox can't be used together"},
		{[]string{"run"}, "git nudge run", `expected "<command> ..."`},
		{[]string{"prune", "--keep", "x"}, "git nudge prune", `--keep: expected a valid 64 bit int but got "x"`},
		{[]string{"du", "--top", "many"}, "git nudge du", `--top: expected a valid 64 bit int but got "many"`},
		{[]string{"snapshot", "--jsn"}, "git nudge snapshot", `unknown flag --jsn, did you mean "--json"?`},
		{[]string{"list", "extra"}, "git nudge list", "unexpected argument extra"},
		{[]string{"save", "--whole"}, "git nudge save", "unknown flag --whole"},
		{[]string{"guard", "accept", "1", "2"}, "git nudge guard accept", "unexpected argument 2"},
		{[]string{"op", "undo", "--nope"}, "git nudge op undo", "unknown flag --nope"},
		{[]string{"op", "show"}, "git nudge op show", `expected "<id>"`},
		{[]string{"dashboard", "--port", "http"}, "git nudge dashboard", "--port: expected a valid 64 bit int"},
		{[]string{"nosuch"}, "git nudge", "unexpected argument nosuch"},
	} {
		res := r.Run(t, c.args...)
		clitest.Usage(t, res, c.help)
		res.HasStderr(t, "git nudge: "+c.says)
	}
	if _, err := os.Stat(filepath.Join(dir, ".nudgethis")); !os.IsNotExist(err) {
		t.Errorf("a refused command line made .nudgethis (%v)", err)
	}
	// With --json the error is also a document on stdout.
	res := r.Run(t, "list", "--json", "extra")
	var doc map[string]any
	clitest.Decode(t, res, &doc)
	if res.Code != 2 || doc["error"] != "unexpected argument extra" || doc["exit"] != float64(2) || keys(doc) != "error,exit,reasons" {
		t.Errorf("list --json extra: exit %d, document %v", res.Code, doc)
	}
	// No command at all: the list of commands on stderr, status 2.
	res = r.Fails(t, 2)
	res.HasStderr(t, "snapshot", "apply", "git nudge: a command is needed")
	// "help CMD" is "CMD --help": the command's own help, status 0.
	res = r.OK(t, "help", "apply")
	res.HasStdout(t, "Usage: git-nudge apply <id>", "--merge")
}

// Flags a command checks itself, after parsing, are refused with status
// 2 (a value that is no value: with the hint to the command's help, as a
// parse error) or 1 (a combination the command declines: no hint), with a
// message saying what to give instead; nothing is changed.
func TestFlagValuesCheckedByTheCommand(t *testing.T) {
	t.Parallel()
	r, dir := workspace(t)
	id := changeTask(t, r)
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"prune", "--older-than", "soon"}, 2, `--older-than: "soon" is not an age: write a number and a unit, such as 30d, 12h or 2w`},
		{[]string{"prune"}, 2, "prune needs a bound: give --older-than AGE (such as 30d) or --keep N, or set one with git config nudge.retention 30d"},
		{[]string{"dashboard", "--port", "70000"}, 2, "--port 70000 is not a port: give 1 to 65535, or 0 for a free one"},
		{[]string{"comment", id}, 1, "git nudge comment needs one of -m TEXT, --list or --delete CID"},
		{[]string{"comment", id, "-m", "x", "--list"}, 1, "git nudge comment needs one of -m TEXT, --list or --delete CID"},
		{[]string{"comment", id, "-m", "x", "--path", "a.txt", "--line", "0"}, 1, `cannot add the comment to t1: --line "0" is not a line number or range`},
		{[]string{"comment", id, "-m", "x", "--path", "a.txt", "--line", "3-2"}, 1, `cannot add the comment to t1: --line "3-2" is not a range N-M with M at least N`},
		{[]string{"show", "t99"}, 1, `unknown task "t99": git nudge list shows this workspace's tasks`},
	} {
		res := r.Fails(t, c.code, c.args...)
		res.HasStderr(t, "git nudge: "+c.says)
		if res.Stdout != "" {
			t.Errorf("stdout: %s", res)
		}
		hint := "Run 'git nudge " + c.args[0] + " -h' for usage.\n"
		if c.code == 2 && !strings.HasSuffix(res.Stderr, "\n"+hint) {
			t.Errorf("a usage error without the hint %q: %s", hint, res)
		}
		if c.code != 2 && strings.Contains(res.Stderr, "for usage.") {
			t.Errorf("a refusal with a usage hint: %s", res)
		}
	}
	var comments []any
	r.JSON(t, &comments, "comment", id, "--list", "--json")
	if len(comments) != 0 {
		t.Errorf("refused comments were kept: %v", comments)
	}
	if got := clitest.ReadFile(t, dir, "a.txt"); got != "one\n" {
		t.Errorf("a.txt = %q", got)
	}
	// --json turns the refusal into the error document, with its reasons.
	res := r.Fails(t, 1, "comment", id, "-m", "x", "--path", "a.txt", "--line", "0", "--json")
	var doc struct {
		Error   string   `json:"error"`
		Reasons []string `json:"reasons"`
		Next    string   `json:"next"`
		Exit    int      `json:"exit"`
	}
	clitest.Decode(t, res, &doc)
	if doc.Exit != 1 || doc.Error != "cannot add the comment to "+id || len(doc.Reasons) != 1 || !strings.Contains(doc.Reasons[0], "--line") {
		t.Errorf("error document %+v", doc)
	}
}

func TestSnapshot(t *testing.T) {
	t.Parallel()
	r, dir := workspace(t)
	head := testutil.Git(t, dir, "rev-parse", "HEAD")
	res := r.OK(t, "snapshot")
	if want := "t1 " + head + " (clean: HEAD's own commit)\n"; res.Stdout != want {
		t.Errorf("clean snapshot:\n%q\nwant\n%q", res.Stdout, want)
	}
	testutil.WriteFile(t, dir, "a.txt", "dirty\n")
	testutil.WriteFile(t, dir, ".env", "SECRET=1\n")
	res = r.OK(t, "snapshot", "-m", "my note")
	lines := strings.Split(res.Stdout, "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "t2 ") || !strings.HasSuffix(lines[0], " (dirty: local changes captured in a new commit)") ||
		lines[1] != "Skipped 1 path(s):" || lines[2] != "  .env  (protected path)" {
		t.Errorf("dirty snapshot:\n%s", res.Stdout)
	}
	var doc map[string]any
	r.JSON(t, &doc, "snapshot", "--json", "--message", "third")
	if keys(doc) != "branch,clean,head,id,note,skipped,snapshot" {
		t.Errorf("snapshot --json keys: %s", keys(doc))
	}
	if doc["id"] != "t3" || doc["clean"] != false || doc["branch"] != "refs/heads/main" || doc["head"] != head || doc["note"] != "third" {
		t.Errorf("snapshot --json: %v", doc)
	}
	snap := doc["snapshot"].(string)
	if got := testutil.Git(t, dir, "show", snap+":a.txt"); got != "dirty" {
		t.Errorf("the snapshot holds a.txt %q", got)
	}
	if got := testutil.Git(t, dir, "rev-parse", "HEAD"); got != head {
		t.Errorf("snapshot moved HEAD to %s", got)
	}
	if got := testutil.Git(t, dir, "status", "--porcelain", "--untracked-files=no"); got != " M a.txt" {
		t.Errorf("snapshot changed the index or the work tree: %q", got)
	}
	if sk := doc["skipped"].([]any); len(sk) != 1 || sk[0].(map[string]any)["path"] != ".env" {
		t.Errorf("skipped: %v", doc["skipped"])
	}
}

func TestListAndShow(t *testing.T) {
	t.Parallel()
	r, _ := workspace(t)
	res := r.OK(t, "list")
	if res.Stdout != "No tasks yet: git nudge snapshot or git nudge run -- CMD makes one.\n" {
		t.Errorf("empty list: %q", res.Stdout)
	}
	var none []any
	r.JSON(t, &none, "list", "--json")
	if none == nil || len(none) != 0 {
		t.Errorf("empty list --json: %v, want []", none)
	}
	id := changeTask(t, r)
	r.OK(t, "snapshot", "-m", "line one\nline two")
	res = r.OK(t, "list")
	want := "ID  STATE               AGE       FILES  BRANCH  NOTE\n" +
		"t2  snapshotted         just now  -      main    line one\n" +
		"t1  ready (validated)   just now  2      main    change a\n"
	if id != "t1" || !strings.HasPrefix(res.Stdout, "ID  STATE") {
		t.Fatalf("list: %s", res)
	}
	gotRows := strings.Fields(strings.Split(res.Stdout, "\n")[2])
	if len(gotRows) < 6 || gotRows[0] != "t1" || gotRows[1] != "ready" || gotRows[4] != "2" || gotRows[5] != "main" {
		t.Errorf("list row of t1: %q\nwhole list:\n%s\nshaped like:\n%s", gotRows, res.Stdout, want)
	}
	if strings.Contains(res.Stdout, "line two") {
		t.Errorf("list shows a note's second line:\n%s", res.Stdout)
	}
	var tasks []map[string]any
	r.JSON(t, &tasks, "list", "--json")
	if len(tasks) != 2 || tasks[0]["id"] != "t2" || tasks[1]["id"] != "t1" || tasks[1]["state"] != "ready" {
		t.Errorf("list --json, newest first: %v", tasks)
	}

	res = r.OK(t, "show", id)
	res.HasStdout(t, "t1 ready\n", "note:       change a\n", "branch:     main\n", "command:    sh -c 'printf '\\''two\\n'\\''",
		"(exit status 0)", "Files (2):\n", "  M  100644 5626abf -> 100644 f719efd  a.txt\n", "  A  000000 0000000 -> 100644 ", "  new.txt\n")
	var view map[string]any
	r.JSON(t, &view, "show", id, "--json")
	if view["id"] != id || view["state"] != "ready" || view["note"] != "change a" || view["exit_code"] != float64(0) {
		t.Errorf("show --json: %v", view)
	}
	files, _ := view["files"].([]any)
	if len(files) != 2 || files[0].(map[string]any)["path"] != "a.txt" || files[0].(map[string]any)["status"] != "M" {
		t.Errorf("show --json files: %v", view["files"])
	}
	if _, ok := view["comments"]; !ok {
		t.Errorf("show --json has no comments key: %v", keys(view))
	}
}

func TestDiff(t *testing.T) {
	t.Parallel()
	r, _ := workspace(t)
	id := changeTask(t, r)
	res := r.OK(t, "diff", id, "--name-status")
	if res.Stdout != "M\ta.txt\nA\tnew.txt\n" {
		t.Errorf("diff --name-status: %q", res.Stdout)
	}
	res = r.OK(t, "diff", id, "--stat")
	res.HasStdout(t, "a.txt", "new.txt", "2 files changed, 2 insertions(+), 1 deletion(-)")
	// Piped: the whole patch, one git apply takes.
	res = r.OK(t, "diff", id)
	res.HasStdout(t, "diff --git a/a.txt b/a.txt\n", "-one\n+two\n", "diff --git a/new.txt b/new.txt\nnew file mode 100644\n")
	if strings.Contains(res.Stdout, "\x1b[") {
		t.Errorf("colour without a terminal: %q", res.Stdout)
	}
	// Paths after the id limit the patch.
	res = r.OK(t, "diff", id, "--", "new.txt")
	if strings.Contains(res.Stdout, "a.txt") || !strings.Contains(res.Stdout, "+new") {
		t.Errorf("diff -- new.txt:\n%s", res.Stdout)
	}
	// On a terminal the patch is bounded: --max-bytes cuts it and says so
	// on stderr; piped, --max-bytes 0 is no bound.
	term := *r
	term.Terminal = true
	res = term.OK(t, "diff", id, "--max-bytes", "40")
	if len(res.Stdout) > 200 || strings.Contains(res.Stdout, "+new") {
		t.Errorf("diff --max-bytes 40 on a terminal printed %d bytes:\n%s", len(res.Stdout), res.Stdout)
	}
	if !strings.Contains(res.Stdout+res.Stderr, "git diff") {
		t.Errorf("diff cut short does not say which git diff shows it all: %s", res)
	}
	res = r.OK(t, "diff", id, "--max-bytes", "0")
	res.HasStdout(t, "+new\n")
	r.Fails(t, 1, "diff", "t9").HasStderr(t, `unknown task "t9"`)
}

func TestApplyUndo(t *testing.T) {
	t.Parallel()
	r, dir := workspace(t)
	id := changeTask(t, r)
	res := r.OK(t, "apply", id)
	want := "Applied t1: 2 files changed in the work tree.\n  M  a.txt\n  A  new.txt\n" +
		"Nothing was staged or committed. Review with git status and git diff (new files are untracked); git nudge undo t1 puts these files back, git nudge save commits them.\n"
	if res.Stdout != want {
		t.Errorf("apply:\n%s\nwant\n%s", res.Stdout, want)
	}
	if clitest.ReadFile(t, dir, "a.txt") != "two\n" || clitest.ReadFile(t, dir, "new.txt") != "new\n" {
		t.Errorf("apply did not write the files")
	}
	if got := testutil.Git(t, dir, "diff", "--cached", "--name-only"); got != "" {
		t.Errorf("apply staged %q", got)
	}
	// Applying again is refused, with the reason, and writes nothing.
	res = r.Fails(t, 1, "apply", id)
	res.HasStderr(t, "git nudge: cannot apply t1")
	var undo map[string]any
	r.JSON(t, &undo, "undo", id, "--json")
	if undo["id"] != id || undo["state"] != "undone" || len(undo["files"].([]any)) != 2 {
		t.Errorf("undo --json: %v", undo)
	}
	if clitest.ReadFile(t, dir, "a.txt") != "one\n" || clitest.ReadFile(t, dir, "new.txt") != "(absent)" {
		t.Errorf("undo did not put the files back")
	}
	res = r.Fails(t, 1, "undo", id)
	res.HasStderr(t, "git nudge: cannot undo t1")

	// Paths: apply only new.txt, then the rest.
	var part map[string]any
	r.JSON(t, &part, "apply", id, "--json", "--", "new.txt")
	if part["applied"] != float64(1) || part["total"] != float64(2) || clitest.ReadFile(t, dir, "a.txt") != "one\n" {
		t.Errorf("apply -- new.txt: %v, a.txt %q", part, clitest.ReadFile(t, dir, "a.txt"))
	}
	res = r.OK(t, "list")
	res.HasStdout(t, "applied 1/2")
	res = r.OK(t, "apply", id)
	if !strings.HasPrefix(res.Stdout, "Applied t1: 1 file changed in the work tree.\n  M  a.txt\nNothing was staged") {
		t.Errorf("apply of the rest:\n%s", res.Stdout)
	}

	// An edit since the snapshot: refused with every reason, nothing
	// written; --json gives the error document too.
	r.OK(t, "undo", id)
	testutil.WriteFile(t, dir, "a.txt", "mine\n")
	res = r.Fails(t, 1, "apply", id, "--json")
	var doc struct {
		Error   string   `json:"error"`
		Reasons []string `json:"reasons"`
		Exit    int      `json:"exit"`
	}
	clitest.Decode(t, res, &doc)
	if doc.Exit != 1 || doc.Error != "cannot apply t1; nothing was changed" || len(doc.Reasons) != 1 || doc.Reasons[0] != "a.txt was edited since the snapshot" {
		t.Errorf("refused apply --json: %+v", doc)
	}
	if clitest.ReadFile(t, dir, "a.txt") != "mine\n" || clitest.ReadFile(t, dir, "new.txt") != "(absent)" {
		t.Errorf("a refused apply wrote files")
	}
	// --merge merges the task's change into the edited file... which here
	// touches the same line: refused, nothing written.
	res = r.Fails(t, 1, "apply", id, "--merge")
	res.HasStderr(t, "a.txt")
	if clitest.ReadFile(t, dir, "a.txt") != "mine\n" {
		t.Errorf("a refused merge wrote a.txt")
	}
}

func TestSave(t *testing.T) {
	t.Parallel()
	r, dir := workspace(t)
	base := testutil.Git(t, dir, "rev-parse", "HEAD")
	r.Fails(t, 1, "save").HasStderr(t, "git nudge: cannot save")
	id := changeTask(t, r)
	r.OK(t, "apply", id)
	var rep map[string]any
	r.JSON(t, &rep, "save", "-m", "the change", "--json")
	head := testutil.Git(t, dir, "rev-parse", "HEAD")
	if rep["commit"] != head || rep["parent"] != base || rep["branch"] != "refs/heads/main" {
		t.Errorf("save --json: %v (HEAD %s, was %s)", rep, head, base)
	}
	if ts, _ := rep["tasks"].([]any); len(ts) != 1 || ts[0] != id {
		t.Errorf("save --json tasks: %v", rep["tasks"])
	}
	if ps, _ := rep["paths"].([]any); len(ps) != 2 || ps[0] != "a.txt" || ps[1] != "new.txt" {
		t.Errorf("save --json paths: %v", rep["paths"])
	}
	if got := testutil.Git(t, dir, "log", "-1", "--format=%s"); got != "the change" {
		t.Errorf("saved commit's message: %q", got)
	}
	if got := testutil.Git(t, dir, "status", "--porcelain"); got != "" {
		t.Errorf("status after save: %q", got)
	}
	res := r.Fails(t, 1, "undo", id)
	res.HasStderr(t, "git nudge: cannot undo t1", "git revert")

	id2 := ranTask(t, r, "b", "printf 'B\\n' > b.txt")
	r.OK(t, "apply", id2)
	res = r.OK(t, "save")
	if !strings.HasPrefix(res.Stdout, "Saved "+id2+" as ") || !strings.Contains(res.Stdout, " on main (1 file).\n  b.txt\n") {
		t.Errorf("save:\n%s", res.Stdout)
	}
	if got := testutil.Git(t, dir, "log", "-1", "--format=%s"); !strings.Contains(got, id2) {
		t.Errorf("default message %q does not name %s", got, id2)
	}
}

func TestDrop(t *testing.T) {
	t.Parallel()
	r, dir := workspace(t)
	a := changeTask(t, r)
	r.OK(t, "snapshot")
	r.OK(t, "snapshot")
	// One unknown id: nothing dropped, every reason given.
	res := r.Fails(t, 1, "drop", "t2", "t9")
	res.HasStderr(t, "t9")
	r.OK(t, "show", "t2")
	res = r.OK(t, "drop", "t2")
	if res.Stdout != "Dropped t2.\n" {
		t.Errorf("drop: %q", res.Stdout)
	}
	r.Fails(t, 1, "show", "t2")
	var one map[string]any
	r.JSON(t, &one, "drop", "t3", "--json")
	if one["id"] != "t3" || one["dropped"] != true {
		t.Errorf("drop --json, one id: %v", one)
	}
	// An applied task is refused without --force, dropped with it, its
	// files left as they are.
	r.OK(t, "apply", a)
	r.Fails(t, 1, "drop", a).HasStderr(t, "git nudge: cannot drop")
	r.JSON(t, &one, "drop", a, "--force", "--json")
	if one["id"] != a || one["dropped"] != true {
		t.Errorf("drop --force --json: %v", one)
	}
	var many []map[string]any
	if clitest.ReadFile(t, dir, "a.txt") != "two\n" {
		t.Errorf("drop --force touched the work tree")
	}
	r.OK(t, "snapshot")
	r.OK(t, "snapshot")
	r.JSON(t, &many, "drop", "t4", "t5", "--json")
	if len(many) != 2 || many[0]["id"] != "t4" || many[1]["id"] != "t5" {
		t.Errorf("drop --json, two ids: %v", many)
	}
}

func TestPrune(t *testing.T) {
	t.Parallel()
	r, _ := workspace(t)
	a := changeTask(t, r)
	r.OK(t, "snapshot")
	r.OK(t, "apply", a)
	var dry struct {
		Dropped []string `json:"dropped"`
		Kept    []struct {
			ID, State, Reason string
		} `json:"kept"`
		DryRun bool `json:"dry_run"`
	}
	r.JSON(t, &dry, "prune", "--keep", "0", "--dry-run", "--json")
	if !dry.DryRun || len(dry.Dropped) != 1 || dry.Dropped[0] != "t2" || len(dry.Kept) != 1 || dry.Kept[0].ID != a {
		t.Errorf("prune --dry-run --json: %+v", dry)
	}
	r.OK(t, "show", "t2") // a dry run drops nothing
	res := r.OK(t, "prune", "--keep", "0", "--dry-run")
	res.HasStdout(t, "Would drop 1 task(s): t2.\n", "Kept t1 (applied): ")
	res = r.OK(t, "prune", "--keep", "0")
	res.HasStdout(t, "Dropped 1 task(s): t2.\n", "Kept 1 old task(s) that you could still want (git nudge prune --dry-run says why).\n")
	r.Fails(t, 1, "show", "t2")
	res = r.OK(t, "prune", "--keep", "0", "-v")
	res.HasStdout(t, "Nothing to prune.\n", "Kept t1 (applied): ")
	// A prune is recorded, and op undo brings the task back.
	r.OK(t, "op", "undo", "o4")
	r.OK(t, "show", "t2")
}

func TestDiskUsage(t *testing.T) {
	t.Parallel()
	r, _ := workspace(t)
	changeTask(t, r)
	res := r.OK(t, "du", "--top", "1")
	res.HasStdout(t, "task refs ", "task records     1 tasks ", "op log ", "total ", "Largest tasks (bytes only they keep):\n  t1 ")
	var u struct {
		Kinds []struct {
			Kind  string `json:"kind"`
			Count int    `json:"count"`
			Unit  string `json:"unit"`
			Bytes int64  `json:"bytes"`
		} `json:"kinds"`
		Largest []struct {
			ID    string `json:"id"`
			Bytes int64  `json:"bytes"`
		} `json:"largest"`
		Total int64 `json:"total_bytes"`
	}
	r.JSON(t, &u, "du", "--json")
	var sum int64
	kinds := map[string]int{}
	for _, k := range u.Kinds {
		sum += k.Bytes
		kinds[k.Kind] = k.Count
	}
	if u.Total != sum || u.Total == 0 || kinds["records"] != 1 || len(u.Largest) != 1 || u.Largest[0].ID != "t1" {
		t.Errorf("du --json: %+v (kinds sum to %d)", u, sum)
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	r, _ := workspace(t)
	a := changeTask(t, r)
	b := ranTaskExit(t, r, 3, "b", "printf 'B\\n' > b.txt; exit 3")
	res := r.OK(t, "compare", a, b)
	lines := strings.Split(res.Stdout, "\n")
	if len(lines) < 7 || !strings.HasPrefix(lines[0], "TASK     ATTEMPT  STATE") ||
		!strings.HasPrefix(lines[1], "t1       -        ready     0 ") || !strings.HasSuffix(lines[1], "+2 -1 in 2 files") ||
		!strings.HasPrefix(lines[2], "t2       -        failed    3 ") || !strings.HasSuffix(lines[2], "+1 -1 in 1 file") ||
		lines[4] != "FILE           t1           t2" || lines[5] != "a.txt          M +1 -1      ." ||
		lines[6] != "b.txt          .            M +1 -1" {
		t.Errorf("compare:\n%s", res.Stdout)
	}
	var cmp []map[string]any
	r.JSON(t, &cmp, "compare", a, b, "--json")
	if len(cmp) != 2 || cmp[0]["id"] != a || cmp[1]["exit_code"] != float64(3) || cmp[1]["state"] != "failed" {
		t.Errorf("compare --json: %v", cmp)
	}
	r.Fails(t, 1, "compare", a, "t9").HasStderr(t, "t9")
}

func TestGuardAccept(t *testing.T) {
	t.Parallel()
	r, dir := workspace(t)
	res := r.Fails(t, 1, "guard", "accept")
	res.HasStderr(t, "git nudge: nothing to accept: the guard has put back no change since the last guard accept")
	// A task's command changes the shared config: the guard puts it back
	// and holds the task back; accept puts the change in place again.
	id := ranTask(t, r, "cfg", "git config --local guard.test yes && printf 'x\\n' > a.txt")
	if _, err := testutil.TryGit(dir, "config", "--local", "guard.test"); err == nil {
		t.Fatal("the guard left the task's config change in place")
	}
	r.Fails(t, 1, "apply", id).HasStderr(t, "--accept-config-change")
	var acc struct {
		Folder string   `json:"folder"`
		Paths  []string `json:"paths"`
		Tasks  []string `json:"tasks"`
	}
	r.JSON(t, &acc, "guard", "accept", "--json")
	if acc.Folder == "" || len(acc.Paths) == 0 || len(acc.Tasks) != 1 || acc.Tasks[0] != id {
		t.Errorf("guard accept --json: %+v", acc)
	}
	if got := testutil.Git(t, dir, "config", "--local", "guard.test"); got != "yes" {
		t.Errorf("accepted config value %q", got)
	}
	r.OK(t, "apply", id)
}

func TestRecover(t *testing.T) {
	t.Parallel()
	r, _ := workspace(t)
	id := changeTask(t, r)
	r.Fails(t, 1, "recover", id).HasStderr(t, "git nudge: ")
	r.OK(t, "apply", id)
	res := r.OK(t, "recover", id)
	res.HasStdout(t, "t1: applied\n", "  after    a.txt\n", "  after    new.txt\n", "Inspect with:\n",
		"t1 was not interrupted, so there is nothing to recover; the report above is for reference.\n")
	var rep struct {
		ID    string `json:"id"`
		State string `json:"state"`
		Files []struct {
			Path    string `json:"path"`
			Matches string `json:"matches"`
		} `json:"files"`
	}
	r.JSON(t, &rep, "recover", id, "--json")
	if rep.ID != id || rep.State != "applied" || len(rep.Files) != 2 || rep.Files[0].Matches != "after" {
		t.Errorf("recover --json: %+v", rep)
	}
}

func TestComment(t *testing.T) {
	t.Parallel()
	r, _ := workspace(t)
	id := changeTask(t, r)
	res := r.OK(t, "comment", id, "-m", "looks off", "--path", "a.txt", "--line", "1")
	if res.Stdout != "Added comment c1 to t1 on a.txt:1. The task's next run finds it in the file named by NUDGE_REVIEW.\n" {
		t.Errorf("comment: %q", res.Stdout)
	}
	var c map[string]any
	r.JSON(t, &c, "comment", id, "-m", "two\nlines", "--json")
	if c["id"] != "c2" || c["text"] != "two\nlines" || c["path"] != "" || c["line"] != nil || keys(c) != "end_line,id,line,path,text,time" {
		t.Errorf("comment --json: %v", c)
	}
	res = r.OK(t, "comment", id, "--list")
	res.HasStdout(t, "c1  a.txt:1  ", "    looks off\n", "c2  ", "    two\n    lines\n")
	res = r.OK(t, "show", id)
	res.HasStdout(t, "Review comments (2; git nudge comment t1 --delete CID removes one):\n")
	res = r.OK(t, "comment", id, "--delete", "c1")
	if res.Stdout != "Deleted comment c1 of t1 (a.txt:1).\n" {
		t.Errorf("comment --delete: %q", res.Stdout)
	}
	var list []map[string]any
	r.JSON(t, &list, "comment", id, "--list", "--json")
	if len(list) != 1 || list[0]["id"] != "c2" {
		t.Errorf("comment --list --json: %v", list)
	}
	// Adding and deleting are operations of the log; listing is not.
	var ops []map[string]any
	r.JSON(t, &ops, "op", "log", "--json")
	kinds := []string{}
	for _, o := range ops {
		kinds = append(kinds, o["kind"].(string))
	}
	if got := strings.Join(kinds, " "); !strings.HasPrefix(got, "comment comment comment run") {
		t.Errorf("op log kinds, newest first: %s", got)
	}
}

func TestOpLogShowUndoRedo(t *testing.T) {
	t.Parallel()
	r, dir := workspace(t)
	res := r.OK(t, "op", "log")
	if res.Stdout != "No operations yet.\n" {
		t.Errorf("op log, empty: %q", res.Stdout)
	}
	id := changeTask(t, r)
	r.OK(t, "apply", id)
	res = r.OK(t, "op", "log")
	lines := strings.Split(strings.TrimSuffix(res.Stdout, "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "o2  just now  git nudge apply t1  ") || !strings.HasPrefix(lines[1], "o1  just now  git nudge run -m 'change a' -- sh -c ") {
		t.Errorf("op log:\n%s", res.Stdout)
	}
	var ops []map[string]any
	r.JSON(t, &ops, "op", "log", "--json")
	if len(ops) != 2 || ops[0]["id"] != "o2" || ops[0]["kind"] != "apply" || ops[0]["tool"] != "nudge" || ops[0]["state"] != "done" {
		t.Errorf("op log --json: %v", ops)
	}
	res = r.OK(t, "op", "show", "o2")
	res.HasStdout(t, "o2  ", "  git nudge apply t1\n", "kind apply, done: ", "  file a.txt: 100644 ", "  file new.txt: (absent) -> 100644 ")
	var show map[string]any
	r.JSON(t, &show, "op", "show", "o2", "--json")
	if show["recovery_required"] != false || show["undone_by"] != nil || show["op"].(map[string]any)["kind"] != "apply" {
		t.Errorf("op show --json: %v", show)
	}
	r.Fails(t, 1, "op", "show", "o9").HasStderr(t, "git nudge: unknown operation o9: this worktree's log (refs/nudgethis-oplog/main) has no such operation", "git nudge op log lists them")

	res = r.OK(t, "op", "undo")
	res.HasStdout(t, "Undid o2 (apply) as o3", "git nudge op redo re-does it; git nudge op undo steps further back.\n")
	if clitest.ReadFile(t, dir, "a.txt") != "one\n" || clitest.ReadFile(t, dir, "new.txt") != "(absent)" {
		t.Errorf("op undo of the apply left the files")
	}
	var redo map[string]any
	r.JSON(t, &redo, "op", "redo", "--json")
	if redo["redoes"] != "o2" || redo["id"] != "o4" {
		t.Errorf("op redo --json: %v", redo)
	}
	if clitest.ReadFile(t, dir, "a.txt") != "two\n" {
		t.Errorf("op redo did not apply again")
	}
	res = r.OK(t, "op", "log")
	res.HasStdout(t, "git nudge op undo  undid o2; 2 files changed; 1 journal changed  (undone by o4)\n")
	// GIT_NUDGE_OPLOG=off runs a command unrecorded (the benchmark's
	// baseline).
	off := *r
	off.Vars = map[string]string{"GIT_NUDGE_OPLOG": "off"}
	off.OK(t, "snapshot")
	r.JSON(t, &ops, "op", "log", "--json")
	if len(ops) != 4 {
		t.Errorf("an unrecorded snapshot was recorded: %d operations", len(ops))
	}
}

// The commands read the clock they are given: ages in list and op log
// count from it.
func TestClockFromEnv(t *testing.T) {
	t.Parallel()
	r, _ := workspace(t)
	r.OK(t, "snapshot")
	later := *r
	later.Now = clitest.Now.Add(3 * 24 * 3600e9)
	later.OK(t, "list").HasStdout(t, "t1  snapshotted  3d ago")
	later.OK(t, "op", "log").HasStdout(t, "o1  3d ago  git nudge snapshot")
	// GIT_NUDGE_TEST_NOW sets it too (the scenarios' fixed clock).
	fixed := *r
	fixed.Vars = map[string]string{nudgecmd.TestNowVar: "2026-01-09T03:04:05Z"}
	fixed.OK(t, "list").HasStdout(t, "t1  snapshotted  7d ago")
}
