package dashboard_test

import (
	"encoding/json"
	"net/http"
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
}
