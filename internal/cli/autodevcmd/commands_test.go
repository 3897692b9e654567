package autodevcmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/cli/autodevcmd"
	"github.com/nudgethis/git-nudge/internal/cli/clitest"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// project is a repository on main with one commit of the user's (a.txt
// "one", message "first") and a runner of git autodev in its work tree.
func project(t *testing.T) (*clitest.Runner, string) {
	t.Helper()
	return clitest.InRepo(t, autodevcmd.Main, map[string]string{"a.txt": "one\n"})
}

func short(t *testing.T, dir, rev string) string {
	t.Helper()
	return testutil.Git(t, dir, "rev-parse", "--short=7", rev)
}

// checkpointAfter writes a.txt and checkpoints with label post; it
// returns the checkpoint's id.
func checkpointAfter(t *testing.T, r *clitest.Runner, dir, content, post string) string {
	t.Helper()
	testutil.WriteFile(t, dir, "a.txt", content)
	var doc struct {
		Outcome    string `json:"outcome"`
		Checkpoint struct {
			ID string `json:"id"`
		} `json:"checkpoint"`
	}
	r.JSON(t, &doc, "checkpoint", "-m", post, "--json")
	if doc.Outcome != "committed" || doc.Checkpoint.ID == "" {
		t.Fatalf("checkpoint: %+v", doc)
	}
	return doc.Checkpoint.ID
}

// A command line kong refuses is a usage error (exit 2) naming the
// command's help, and changes nothing: no .autodev folder appears.
func TestUsageErrorsNameTheCommandsHelp(t *testing.T) {
	t.Parallel()
	r, dir := project(t)
	for _, c := range []struct {
		args []string
		help string
		says string
	}{
		{[]string{"hooks", "install", "vim"}, "git autodev hooks install", `<agent> must be one of "claude","codex","gemini","cursor" but got "vim"`},
		{[]string{"hooks", "uninstall"}, "git autodev hooks uninstall", `expected "<agent>"`},
		{[]string{"checkpoint", "--jsn"}, "git autodev checkpoint", `unknown flag --jsn, did you mean "--json"?`},
		{[]string{"checkpoint", "extra"}, "git autodev checkpoint", "unexpected argument extra"},
		{[]string{"prune", "--keep", "x"}, "git autodev prune", `--keep: expected a valid 64 bit int but got "x"`},
		{[]string{"squash", "extra"}, "git autodev squash", "unexpected argument extra"},
		{[]string{"du", "--top", "x"}, "git autodev du", `--top: expected a valid 64 bit int but got "x"`},
		{[]string{"restore", "c1", "c2"}, "git autodev restore", "unexpected argument c2"},
		{[]string{"status", "--all"}, "git autodev status", "unknown flag --all"},
		{[]string{"park", "-m"}, "git autodev park", "--message: expected string value"},
		{[]string{"op", "redo", "o1"}, "git autodev op redo", "unexpected argument o1"},
		{[]string{"nosuch"}, "git autodev", "unexpected argument nosuch"},
	} {
		res := r.Run(t, c.args...)
		clitest.Usage(t, res, c.help)
		res.HasStderr(t, "git autodev: "+c.says)
	}
	if _, err := os.Stat(filepath.Join(dir, ".autodev")); !os.IsNotExist(err) {
		t.Errorf("a refused command line made .autodev (%v)", err)
	}
	// Checked by the command itself: status 2 with what to give instead,
	// and the hint to the command's help that a parse error has too.
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"restore", "c1", "--rebuild"}, "--rebuild takes no checkpoint id"},
		{[]string{"prune"}, "prune needs a bound: give --older-than AGE (such as 30d) or --keep N, or set one with git config autodev.retention 30d"},
		{[]string{"prune", "--older-than", "soon"}, `--older-than: "soon" is not an age: write a number and a unit, such as 30d, 12h or 2w`},
		{[]string{"dashboard", "--port", "70000"}, "--port 70000 is not a port: give 1 to 65535, or 0 for a free one"},
	} {
		res := r.Fails(t, 2, c.args...)
		want := "git autodev: " + c.says + "\nRun 'git autodev " + c.args[0] + " -h' for usage.\n"
		if res.Stderr != want || res.Stdout != "" {
			t.Errorf("want only %q on stderr: %s", want, res)
		}
	}
	if got := testutil.Git(t, dir, "for-each-ref", "refs/autodev"); got != "" {
		t.Errorf("refused commands made refs: %s", got)
	}
}

// Outside a repository every command says checkpoints are disabled and
// exits 0, as text or as JSON.
func TestOutsideARepository(t *testing.T) {
	t.Parallel()
	r := &clitest.Runner{Main: autodevcmd.Main, Dir: testutil.RealTempDir(t)}
	const msg = "Not a git repository; checkpoints/rollback disabled (git init to enable recovery snapshots)"
	for _, args := range [][]string{{"status"}, {"checkpoint"}, {"restore"}, {"park"}, {"squash"}, {"du"}, {"prune", "--keep", "1"}, {"op", "log"}} {
		res := r.OK(t, args...)
		if res.Stdout != msg+"\n" {
			t.Errorf("%v: %s", args, res)
		}
		var doc map[string]any
		r.JSON(t, &doc, append(args, "--json")...)
		if doc["repository"] != false || doc["message"] != msg {
			t.Errorf("%v --json: %v", args, doc)
		}
	}
	// hook never fails an agent and never writes on stdout.
	res := r.OK(t, "hook", "--event", "Stop")
	if res.Stdout != "" || !strings.Contains(res.Stderr, "git autodev hook: Not a git repository") {
		t.Errorf("hook outside a repository: %s", res)
	}
}

func TestCheckpoint(t *testing.T) {
	t.Parallel()
	r, dir := project(t)
	first := testutil.Git(t, dir, "rev-parse", "HEAD")
	// A clean tree: HEAD, a commit of the user's, is recorded as it is.
	res := r.OK(t, "checkpoint")
	if want := "c1 ✔ thread — first (" + short(t, dir, "HEAD") + ")\n"; res.Stdout != want {
		t.Errorf("checkpoint of a clean tree: %q, want %q", res.Stdout, want)
	}
	res = r.OK(t, "checkpoint")
	if want := "Nothing to checkpoint: HEAD (" + short(t, dir, "HEAD") + ") is already checkpoint c1.\n"; res.Stdout != want {
		t.Errorf("second checkpoint: %q, want %q", res.Stdout, want)
	}
	res = r.OK(t, "checkpoint", "--baseline")
	if res.Stdout != "No baseline: the work tree has no uncommitted changes.\n" {
		t.Errorf("checkpoint --baseline, clean: %q", res.Stdout)
	}
	// Changes: committed by autodev, the post's first line the label,
	// a protected file left out and named.
	testutil.WriteFile(t, dir, "a.txt", "two\n")
	testutil.WriteFile(t, dir, ".env", "S=1\n")
	res = r.OK(t, "checkpoint", "-m", "fix the parser\nlong post")
	head := testutil.Git(t, dir, "rev-parse", "HEAD")
	if want := "c2 ✔ thread — fix the parser (" + head[:7] + ")\nnot checkpointed: .env (protected) (left in the work tree, untracked)\n"; res.Stdout != want {
		t.Errorf("checkpoint:\n%q\nwant\n%q", res.Stdout, want)
	}
	if got := testutil.Git(t, dir, "log", "-1", "--format=%an <%ae>|%P"); got != "autodev <autodev@localhost>|"+first {
		t.Errorf("checkpoint commit: %s", got)
	}
	if got := testutil.Git(t, dir, "status", "--porcelain"); got != "?? .env" {
		t.Errorf("status after the checkpoint: %q", got)
	}
	testutil.WriteFile(t, dir, "b.txt", "bee\n")
	var doc map[string]any
	r.JSON(t, &doc, "checkpoint", "--task", "T-7", "--mode", "fix", "--json")
	cp, _ := doc["checkpoint"].(map[string]any)
	if doc["outcome"] != "committed" || doc["head"] != testutil.Git(t, dir, "rev-parse", "HEAD") || cp["id"] != "c3" ||
		cp["task"] != "T-7" || cp["mode"] != "fix" || cp["branch"] != "main" || doc["recovered"] != nil {
		t.Errorf("checkpoint --json: %v", doc)
	}
	if lo, _ := doc["left_out"].([]any); len(lo) != 1 || lo[0].(map[string]any)["path"] != ".env" || lo[0].(map[string]any)["reason"] != "protected" {
		t.Errorf("checkpoint --json left_out: %v", doc["left_out"])
	}
	// Switched off by git config: says so, records nothing.
	testutil.Git(t, dir, "config", "autodev.checkpoints", "false")
	testutil.WriteFile(t, dir, "a.txt", "three\n")
	res = r.OK(t, "checkpoint")
	if res.Stdout != "Checkpoints are off (git config autodev.checkpoints false); nothing was recorded.\n" {
		t.Errorf("checkpoint, off: %q", res.Stdout)
	}
}

func TestRestoreListAndRestore(t *testing.T) {
	t.Parallel()
	r, dir := project(t)
	res := r.OK(t, "restore")
	if res.Stdout != "No checkpoints yet.\n" {
		t.Errorf("empty list: %q", res.Stdout)
	}
	var empty []any
	res = r.JSON(t, &empty, "restore", "--json")
	if empty == nil || len(empty) != 0 || res.Stderr != "No checkpoints yet.\n" {
		t.Errorf("empty list --json: %v, stderr %q", empty, res.Stderr)
	}
	c1 := checkpointAfter(t, r, dir, "two\n", "second")
	c2 := checkpointAfter(t, r, dir, "three\n", "third")
	res = r.OK(t, "restore")
	lines := strings.Split(strings.TrimSuffix(res.Stdout, "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], c2+" ✔ thread — third ") || !strings.HasSuffix(lines[0], "just now ← HEAD") ||
		!strings.HasPrefix(lines[1], c1+" ✔ thread — second ") || strings.Contains(lines[1], "HEAD") {
		t.Errorf("restore list:\n%s", res.Stdout)
	}
	var list []map[string]any
	r.JSON(t, &list, "restore", "--json")
	if len(list) != 2 || list[0]["id"] != c2 || list[0]["head"] != true || list[1]["head"] != false || list[1]["label"] != "thread — second" {
		t.Errorf("restore --json: %v", list)
	}
	// Restore with uncommitted work: parked on a pre-restore branch.
	testutil.WriteFile(t, dir, "a.txt", "mine\n")
	res = r.OK(t, "restore", c1)
	if !strings.HasPrefix(res.Stdout, `Restored to "thread — second" (`+short(t, dir, "HEAD")+"); saved on autodev/pre-restore-") {
		t.Errorf("restore:\n%s", res.Stdout)
	}
	if clitest.ReadFile(t, dir, "a.txt") != "two\n" {
		t.Errorf("a.txt after the restore: %q", clitest.ReadFile(t, dir, "a.txt"))
	}
	var back map[string]any
	r.JSON(t, &back, "restore", c1, "--json")
	if back["unchanged"] != true {
		t.Errorf("restore of where HEAD is, --json: %v", back)
	}
	res = r.OK(t, "restore", c1)
	if !strings.HasPrefix(res.Stdout, `Already at "thread — second"`) {
		t.Errorf("restore of where HEAD is: %q", res.Stdout)
	}
	// An unknown checkpoint: exit 1, the message as it is.
	res = r.Fails(t, 1, "restore", "c99")
	if !strings.Contains(res.Stderr, "c99") || strings.HasPrefix(res.Stderr, "git autodev: git autodev") {
		t.Errorf("restore c99: %s", res)
	}
	// The journal gone: the list says how to rebuild it; --rebuild does.
	if err := os.Remove(filepath.Join(dir, ".autodev", "checkpoints.json")); err != nil {
		t.Fatal(err)
	}
	res = r.OK(t, "restore")
	res.HasStdout(t, "No checkpoints.json, but history holds ", "Run git autodev restore --rebuild to rebuild the journal")
	res = r.OK(t, "restore", "--rebuild")
	res.HasStdout(t, "Rebuilt ", "checkpoints.json: ", "thread — third")
}

func TestStatus(t *testing.T) {
	t.Parallel()
	r, dir := project(t)
	res := r.OK(t, "status")
	if res.Stdout != "Run: idle\nCheckpoints: none yet\n" {
		t.Errorf("status: %q", res.Stdout)
	}
	c1 := checkpointAfter(t, r, dir, "two\n", "second")
	res = r.OK(t, "status")
	want := "Run: idle\nCheckpoints: 1; HEAD is at " + c1 + " ✔ thread — second (" + short(t, dir, "HEAD") + ")\n1 restore point(s) — rewind now that the run is stopped\n"
	if res.Stdout != want {
		t.Errorf("status:\n%q\nwant\n%q", res.Stdout, want)
	}
	testutil.Commit(t, dir, map[string]string{"b.txt": "b\n"}, "mine")
	res = r.OK(t, "status")
	res.HasStdout(t, "Checkpoints: 1; HEAD ("+short(t, dir, "HEAD")+") is not at a checkpoint\n")
	var doc map[string]any
	r.JSON(t, &doc, "status", "--json")
	for k, v := range map[string]any{"status": "idle", "active": false, "checkpoints": float64(1), "checkpoints_enabled": true,
		"head": testutil.Git(t, dir, "rev-parse", "HEAD"), "head_checkpoint": nil, "stale": false, "restore_points": float64(1)} {
		if doc[k] != v {
			t.Errorf("status --json %s = %v, want %v", k, doc[k], v)
		}
	}
	// A lock git left behind is named.
	testutil.WriteFile(t, dir, ".git/index.lock", "")
	res = r.OK(t, "status")
	res.HasStdout(t, "Index locked: ", ".git/index.lock exists and is not autodev's")
}

func TestPark(t *testing.T) {
	t.Parallel()
	r, dir := project(t)
	head := testutil.Git(t, dir, "rev-parse", "HEAD")
	testutil.WriteFile(t, dir, "a.txt", "wip\n")
	testutil.WriteFile(t, dir, "new.txt", "n\n")
	res := r.OK(t, "park", "-m", "half done")
	if !strings.HasPrefix(res.Stdout, "Parked the work tree on autodev/parked-20260102T030405Z (") ||
		!strings.HasSuffix(res.Stdout, "); files, index and HEAD are unchanged. Run state: error.\n") {
		t.Errorf("park: %q", res.Stdout)
	}
	if got := testutil.Git(t, dir, "rev-parse", "HEAD"); got != head {
		t.Errorf("park moved HEAD")
	}
	if got := testutil.Git(t, dir, "status", "--porcelain"); got != " M a.txt\n?? new.txt" {
		t.Errorf("park changed the work tree or index: %q", got)
	}
	if got := testutil.Git(t, dir, "show", "autodev/parked-20260102T030405Z:new.txt"); got != "n" {
		t.Errorf("parked commit's new.txt: %q", got)
	}
	if got := testutil.Git(t, dir, "log", "-1", "--format=%s", "autodev/parked-20260102T030405Z"); !strings.Contains(got, "half done") {
		t.Errorf("parked commit's message: %q", got)
	}
	var doc map[string]any
	r.JSON(t, &doc, "park", "--json")
	if doc["branch"] != "autodev/parked-20260102T030405Z-2" || doc["clean"] != false || doc["status"] != "error" {
		t.Errorf("park --json: %v", doc)
	}
	var st map[string]any
	r.JSON(t, &st, "status", "--json")
	if st["status"] != "error" {
		t.Errorf("run state after park: %v", st["status"])
	}
}

func TestSquash(t *testing.T) {
	t.Parallel()
	r, dir := project(t)
	base := testutil.Git(t, dir, "rev-parse", "HEAD")
	res := r.Fails(t, 1, "squash")
	if !strings.HasPrefix(res.Stderr, "git autodev: cannot squash: nothing to squash: HEAD "+base[:7]+` ("first") is not an autodev checkpoint commit`) {
		t.Errorf("squash without checkpoints: %s", res)
	}
	res = r.Fails(t, 1, "squash", "--json")
	var edoc map[string]any
	clitest.Decode(t, res, &edoc)
	if edoc["exit"] != float64(1) || !strings.Contains(edoc["error"].(string), "cannot squash") {
		t.Errorf("squash --json refused: %v", edoc)
	}
	c1 := checkpointAfter(t, r, dir, "two\n", "second")
	checkpointAfter(t, r, dir, "three\n", "third")
	c3 := checkpointAfter(t, r, dir, "four\n", "fourth")
	tree := testutil.Git(t, dir, "rev-parse", "HEAD^{tree}")
	res = r.OK(t, "squash", "--from", "c2", "-m", "partial")
	if want := "Squashed 2 checkpoints (c2..c3) into " + short(t, dir, "HEAD") + " on main; the files and the index are unchanged.\n" +
		"The checkpoints stay restorable (git autodev restore " + c3 + "); git autodev op undo takes the squash back.\n"; res.Stdout != want {
		t.Errorf("squash --from:\n%q\nwant\n%q", res.Stdout, want)
	}
	if got := testutil.Git(t, dir, "log", "-1", "--format=%s|%an|%T"); got != "partial|Test User|"+tree {
		t.Errorf("squashed commit: %s", got)
	}
	r.OK(t, "op", "undo")
	var doc struct {
		Commit string   `json:"commit"`
		Parent string   `json:"parent"`
		Before string   `json:"before"`
		Branch string   `json:"branch"`
		Folded []string `json:"folded"`
	}
	before := testutil.Git(t, dir, "rev-parse", "HEAD")
	r.JSON(t, &doc, "squash", "--json")
	if doc.Commit != testutil.Git(t, dir, "rev-parse", "HEAD") || doc.Parent != base || doc.Before != before || doc.Branch != "refs/heads/main" ||
		strings.Join(doc.Folded, " ") != c1+" c2 "+c3 {
		t.Errorf("squash --json: %+v", doc)
	}
}

func TestDiskUsage(t *testing.T) {
	t.Parallel()
	r, dir := project(t)
	checkpointAfter(t, r, dir, "two\n", "second")
	res := r.OK(t, "du")
	res.HasStdout(t, "checkpoint refs   1 refs ", "journals          1 checkpoints ", "op log ", "total ")
	var u struct {
		Kinds []struct {
			Kind  string `json:"kind"`
			Count int    `json:"count"`
			Bytes int64  `json:"bytes"`
		} `json:"kinds"`
		Largest []any `json:"largest"`
		Total   int64 `json:"total_bytes"`
	}
	r.JSON(t, &u, "du", "--json")
	var sum int64
	var names []string
	for _, k := range u.Kinds {
		sum += k.Bytes
		names = append(names, k.Kind)
	}
	if got := strings.Join(names, " "); got != "checkpoint_refs autodev_branches journals op_log" || u.Total != sum || u.Largest == nil {
		t.Errorf("du --json: %+v", u)
	}
}

func TestPrune(t *testing.T) {
	t.Parallel()
	r, dir := project(t)
	c1 := checkpointAfter(t, r, dir, "two\n", "second")
	checkpointAfter(t, r, dir, "three\n", "third")
	r.OK(t, "restore", c1) // c2 and the pre-restore c3 are in no branch's history now
	res := r.OK(t, "prune", "--keep", "0", "--dry-run")
	res.HasStdout(t, "Would drop 2 checkpoints: c2, c3.\n", "Kept c1: HEAD is at it.\n")
	var res2 struct {
		Dropped []string `json:"dropped"`
		Kept    []struct {
			ID     string `json:"id"`
			Reason string `json:"reason"`
		} `json:"kept"`
		DryRun bool `json:"dry_run"`
	}
	r.JSON(t, &res2, "prune", "--keep", "0", "--json")
	if res2.DryRun || strings.Join(res2.Dropped, " ") != "c2 c3" || len(res2.Kept) != 1 || res2.Kept[0].ID != "c1" {
		t.Errorf("prune --json: %+v", res2)
	}
	if got := testutil.Git(t, dir, "for-each-ref", "--format=%(refname)", "refs/autodev/checkpoints"); got != "refs/autodev/checkpoints/c1" {
		t.Errorf("refs after prune: %q", got)
	}
	res = r.OK(t, "prune", "--keep", "0")
	if res.Stdout != "Nothing to prune.\n" {
		t.Errorf("second prune: %q", res.Stdout)
	}
	// op undo brings the pruned checkpoints back.
	r.OK(t, "op", "undo", "o4")
	var list []map[string]any
	r.JSON(t, &list, "restore", "--json")
	if len(list) != 3 || list[0]["id"] != "c3" || list[1]["id"] != "c2" {
		t.Errorf("after op undo of the prune, %d checkpoints listed: %v", len(list), list)
	}
}

func TestHooksInstallUninstall(t *testing.T) {
	t.Parallel()
	r, dir := project(t)
	res := r.OK(t, "hooks", "install", "claude", "--dry-run")
	if !strings.HasPrefix(res.Stdout, "Would create .claude/settings.json with a hook on Stop that runs git autodev hook --event Stop:\n+ {\n") {
		t.Errorf("hooks install --dry-run:\n%s", res.Stdout)
	}
	if clitest.ReadFile(t, dir, ".claude/settings.json") != "(absent)" {
		t.Errorf("a dry run wrote the settings")
	}
	res = r.OK(t, "hooks", "install", "claude")
	res.HasStdout(t, "Created .claude/settings.json with a hook on Stop", `+             "command": "git autodev hook --event Stop"`,
		"Claude Code now checkpoints every turn; the hooks log to .autodev/hook.log.\n")
	if !strings.Contains(clitest.ReadFile(t, dir, ".claude/settings.json"), `"command": "git autodev hook --event Stop"`) {
		t.Errorf("settings: %s", clitest.ReadFile(t, dir, ".claude/settings.json"))
	}
	var doc map[string]any
	r.JSON(t, &doc, "hooks", "install", "claude", "--json")
	if doc["changed"] != false || doc["agent"] != "claude" || doc["file"] != ".claude/settings.json" || doc["event"] != "Stop" || doc["dry_run"] != false {
		t.Errorf("hooks install again --json: %v", doc)
	}
	res = r.OK(t, "hooks", "install", "claude")
	if res.Stdout != ".claude/settings.json already has a hook on Stop that runs git autodev hook --event Stop; nothing changed.\n" {
		t.Errorf("hooks install again: %q", res.Stdout)
	}
	// An existing settings file keeps everything else.
	testutil.WriteFile(t, dir, ".gemini/settings.json", "{\n  \"theme\": \"dark\"\n}\n")
	r.OK(t, "hooks", "install", "gemini")
	if s := clitest.ReadFile(t, dir, ".gemini/settings.json"); !strings.Contains(s, `"theme": "dark"`) || !strings.Contains(s, "AfterAgent") {
		t.Errorf("gemini settings: %s", s)
	}
	res = r.OK(t, "hooks", "uninstall", "gemini")
	if got := clitest.ReadFile(t, dir, ".gemini/settings.json"); got != "{\n  \"theme\": \"dark\"\n}\n" {
		t.Errorf("gemini settings after uninstall: %q", got)
	}
	res = r.OK(t, "hooks", "uninstall", "claude")
	if res.Stdout != "Removed .claude/settings.json: install had created it and it held nothing else.\n" || clitest.ReadFile(t, dir, ".claude/settings.json") != "(absent)" {
		t.Errorf("hooks uninstall: %s", res)
	}
	// Not valid JSON: refused, left as it is.
	testutil.WriteFile(t, dir, ".cursor/hooks.json", "{ not json")
	r.Fails(t, 1, "hooks", "install", "cursor")
	if clitest.ReadFile(t, dir, ".cursor/hooks.json") != "{ not json" {
		t.Errorf("a refused install changed the file")
	}
}

func TestHook(t *testing.T) {
	t.Parallel()
	r, dir := project(t)
	// Nothing changed: no checkpoint, nothing on stdout, status 0.
	res := r.OK(t, "hook", "--event", "Stop")
	if res.Stdout != "" || res.Stderr != "git autodev hook: nothing to checkpoint: the work tree has no uncommitted change\n" {
		t.Errorf("hook, clean: %s", res)
	}
	// The payload from stdin labels the checkpoint with the prompt.
	testutil.WriteFile(t, dir, "a.txt", "two\n")
	withPayload := *r
	withPayload.Stdin = `{"hook_event_name":"Stop","session_id":"s-1","prompt":"add the parser\nplease"}`
	res = withPayload.OK(t, "hook")
	if res.Stdout != "" || !strings.Contains(res.Stderr, "git autodev hook: c1 ") || !strings.Contains(res.Stderr, "add the parser") {
		t.Errorf("hook with a payload: %s", res)
	}
	var list []map[string]any
	r.JSON(t, &list, "restore", "--json")
	if len(list) != 1 || !strings.Contains(list[0]["label"].(string), "add the parser") {
		t.Errorf("the hook's checkpoint: %v", list)
	}
	if !strings.Contains(clitest.ReadFile(t, dir, ".autodev/hook.log"), "add the parser") {
		t.Errorf("hook.log: %q", clitest.ReadFile(t, dir, ".autodev/hook.log"))
	}
	// A payload that is not JSON still gives a checkpoint, labelled with
	// the event; the last argument is the payload.
	testutil.WriteFile(t, dir, "a.txt", "three\n")
	res = r.OK(t, "hook", "--event", "agent-turn-complete", "not json")
	if res.Stdout != "" || !strings.Contains(res.Stderr, "the payload is not a JSON object") || !strings.Contains(res.Stderr, "c2 ") {
		t.Errorf("hook with garbage: %s", res)
	}
}

func TestOpLog(t *testing.T) {
	t.Parallel()
	r, dir := project(t)
	checkpointAfter(t, r, dir, "two\n", "second")
	res := r.OK(t, "op", "log")
	if !strings.HasPrefix(res.Stdout, "o1  just now  git autodev checkpoint -m second --json  main ") {
		t.Errorf("op log: %q", res.Stdout)
	}
	res = r.OK(t, "op", "undo")
	res.HasStdout(t, "Undid o1 (checkpoint) as o2", "git autodev op redo re-does it; git autodev op undo steps further back.\n")
	if clitest.ReadFile(t, dir, "a.txt") != "two\n" || testutil.Git(t, dir, "log", "-1", "--format=%s") != "first" {
		t.Errorf("op undo of a checkpoint: HEAD %s, a.txt %q", testutil.Git(t, dir, "log", "-1", "--format=%s"), clitest.ReadFile(t, dir, "a.txt"))
	}
	var ops []map[string]any
	r.JSON(t, &ops, "op", "log", "--json")
	if len(ops) != 2 || ops[0]["kind"] != "op-undo" || ops[1]["undone_by"] != "o2" || ops[1]["tool"] != "autodev" {
		t.Errorf("op log --json: %v", ops)
	}
	// The list, status and du are not recorded.
	r.OK(t, "restore")
	r.OK(t, "status")
	r.OK(t, "du")
	r.JSON(t, &ops, "op", "log", "--json")
	if len(ops) != 2 {
		t.Errorf("reading commands were recorded: %d operations", len(ops))
	}
}
