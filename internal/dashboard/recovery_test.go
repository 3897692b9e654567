package dashboard_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// interrupted kills `git nudge apply t1` (a process of its own) after its
// first write, leaving t1 for "Recovery required".
func interrupted(t *testing.T) string {
	t.Helper()
	dir := workspace(t)
	c := gitNudge(t, dir, "apply", "t1")
	c.Env = append(c.Env, "GIT_NUDGE_TEST_FAULT=apply-after-first-write")
	if err := c.Run(); err == nil {
		t.Fatal("the apply was not interrupted")
	}
	return dir
}

func TestRecoveryRequired(t *testing.T) {
	t.Parallel()
	h := serve(t, interrupted(t))
	_, _, body := h.do("GET", "/api/nudge/tasks", true, nil)
	if !strings.Contains(string(body), `"state":"recovery_required"`) {
		t.Fatalf("list: %s", body)
	}
	code, _, body := h.do("GET", "/api/nudge/tasks/t1/recover", true, nil)
	var rep struct {
		ID       string
		State    string
		Files    []struct{ Path, Matches string }
		Commands []string
	}
	if err := json.Unmarshal(body, &rep); code != http.StatusOK || err != nil || rep.State != "recovery_required" ||
		len(rep.Files) != 1 || rep.Files[0].Path != "a.txt" || rep.Files[0].Matches != "after" || len(rep.Commands) == 0 {
		t.Fatalf("recover: %d %s", code, body)
	}
	// Never retried, undone or dropped from the page either.
	for _, a := range []string{"apply", "undo", "drop"} {
		code, _, body := h.do("POST", "/api/nudge/tasks/t1/"+a, true, nil)
		if code != http.StatusConflict {
			t.Fatalf("%s of a Recovery required task: %d %s", a, code, body)
		}
		errorDoc(t, body)
	}
}

func TestBrowserRecoveryRequired(t *testing.T) {
	ctx := browser(t)
	h := serve(t, interrupted(t))
	navigate(t, ctx, h.srv.URL("tasks"))
	waitFor(t, ctx, "t1 Recovery required", textOf(`#tasks tbody tr[data-id="t1"]`)+`.includes("Recovery required")`)
	click(t, ctx, `#tasks tbody tr[data-id="t1"]`)
	waitFor(t, ctx, "the recover report", textOf("#recovery")+`.includes("a.txt") && `+textOf("#recovery")+`.includes("git nudge show t1")`)
	waitFor(t, ctx, "no buttons", `document.querySelectorAll('#task button').length === 0`)
	// The whole record: undo.before and undo.after of each path (mode and
	// blob, as git nudge show --json has them), the patch's files, and the
	// commands to run next, not cut.
	show := nudge(t, h.dir, "show", "t1", "--json")
	var rec struct {
		Undo struct {
			Before, After []struct{ Path, Mode, Blob string }
		}
	}
	if err := json.Unmarshal([]byte(show), &rec); err != nil || len(rec.Undo.Before) != 1 || len(rec.Undo.After) != 1 {
		t.Fatalf("show --json: %v\n%s", err, show)
	}
	b, a := rec.Undo.Before[0], rec.Undo.After[0]
	for _, w := range widths {
		viewport(t, ctx, w.width, w.height)
		waitFor(t, ctx, "undo.before and undo.after", `(() => { const r = document.querySelector('#recovery-files tbody tr'); return !!r && r.cells[2].textContent === `+strconv.Quote(b.Mode+" "+b.Blob[:12])+` && r.cells[3].textContent === `+strconv.Quote(a.Mode+" "+a.Blob[:12])+`; })()`)
		waitFor(t, ctx, "the patch's files", textOf("#recovery-patch")+`.includes("M a.txt")`)
		waitFor(t, ctx, "the next commands", textOf("#recovery-inspect")+`.startsWith("git nudge recover t1\n") && `+textOf("#recovery-next")+`.includes("git nudge drop --force t1 removes it")`)
		noOverflow(t, ctx, "Recovery required at "+w.name)
		screenshot(t, ctx, "dashboard-recovery-"+w.name+".png")
	}
}

// One truth for an interrupted apply: the operations list marks
// the pending apply Recovery required and explains why it has no undo;
// git nudge op show gives each file the answer the recovery view gives;
// once the task is dropped the entry leaves the list.
func TestRecoveryOneTruth(t *testing.T) {
	t.Parallel()
	dir := interrupted(t)
	h := serve(t, dir)
	_, _, body := h.do("GET", "/api/nudge/tasks/t1/recover", true, nil)
	var rep struct {
		Files []struct{ Path, Matches string }
	}
	if err := json.Unmarshal(body, &rep); err != nil || len(rep.Files) == 0 {
		t.Fatalf("recover: %s", body)
	}
	var ops []struct {
		ID               string   `json:"id"`
		RecoveryRequired bool     `json:"recovery_required"`
		UndoRefusal      []string `json:"undo_refusal"`
	}
	_, _, body = h.do("GET", "/api/ops", true, nil)
	if err := json.Unmarshal(body, &ops); err != nil || len(ops) == 0 || !strings.HasPrefix(ops[0].ID, "p") || !ops[0].RecoveryRequired ||
		!strings.Contains(strings.Join(ops[0].UndoRefusal, "\n"), "git nudge recover t1") {
		t.Fatalf("ops: %s", body)
	}
	out, err := gitNudge(t, dir, "op", "show", "--json", ops[0].ID).Output()
	if err != nil {
		t.Fatal(err)
	}
	var show struct {
		Holds []struct{ Change, Holds string }
	}
	if err := json.Unmarshal(out, &show); err != nil {
		t.Fatalf("op show: %v\n%s", err, out)
	}
	files := map[string]string{}
	for _, h := range show.Holds {
		if p, ok := strings.CutPrefix(h.Change, "file "); ok {
			files[p] = h.Holds
		}
	}
	for _, f := range rep.Files {
		if files[f.Path] != f.Matches {
			t.Errorf("%s: recovery view says %s, op show %q\n%s", f.Path, f.Matches, files[f.Path], out)
		}
	}
	if len(files) != len(rep.Files) {
		t.Errorf("op show names %d files, the recovery view %d\n%s", len(files), len(rep.Files), out)
	}
	if err := gitNudge(t, dir, "drop", "--force", "t1").Run(); err != nil {
		t.Fatal(err)
	}
	_, _, body = h.do("GET", "/api/ops", true, nil)
	if strings.Contains(string(body), `"id":"p`) {
		t.Fatalf("the dropped task's pending apply is still listed: %s", body)
	}
}
