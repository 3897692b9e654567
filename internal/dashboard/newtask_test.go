package dashboard_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/dashboard"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// New task: the tasks page starts only the commands of git config
// nudge.command.<name>, by name, as git nudge queue would, and the
// server's executor runs them.
func TestNewTaskFromConfiguredCommand(t *testing.T) {
	t.Parallel()
	dir := workspace(t)
	s := startServe(t, dir, false)
	if _, _, body := s.do("GET", "/api/nudge/commands", true, nil); strings.TrimSpace(string(body)) != `{"commands":[],"execution":true}` {
		t.Fatalf("no commands: %s", body)
	}
	testutil.Git(t, dir, "config", "nudge.command.shout", "tr a-z A-Z < a.txt > a.tmp && mv a.tmp a.txt")
	_, _, body := s.do("GET", "/api/nudge/commands", true, nil)
	if !strings.Contains(string(body), `{"name":"shout","command":"tr a-z A-Z < a.txt > a.tmp && mv a.tmp a.txt"}`) {
		t.Fatalf("commands: %s", body)
	}
	// A GET starts nothing; an unknown name (or one of autodev's
	// commands) is refused; a command line is never taken from the page.
	testutil.Git(t, dir, "config", "autodev.command.agent", "true")
	if code, _, _ := s.do("GET", "/api/nudge/queue/shout", true, nil); code != http.StatusMethodNotAllowed {
		t.Fatalf("GET of a new task: %d", code)
	}
	for _, name := range []string{"nope", "agent", "sh%20-c%20true"} {
		code, _, body := s.do("POST", "/api/nudge/queue/"+name, true, nil)
		if doc := errorDoc(t, body); code != http.StatusNotFound || !strings.Contains(doc.Error, "nudge.command.") {
			t.Fatalf("unknown command %s: %d %s", name, code, body)
		}
	}
	if out := nudge(t, dir, "list"); strings.Contains(out, "t2") {
		t.Fatalf("a refused or GET request made a task:\n%s", out)
	}
	code, _, body := s.do("POST", "/api/nudge/queue/shout", true, nil)
	var task struct {
		ID      string   `json:"id"`
		State   string   `json:"state"`
		Note    string   `json:"note"`
		Command []string `json:"command"`
	}
	if code != http.StatusOK || json.Unmarshal(body, &task) != nil {
		t.Fatalf("new task: %d %s", code, body)
	}
	if task.ID != "t2" || task.State != "pending" || task.Note != "shout" || strings.Join(task.Command, " ") != "sh -c tr a-z A-Z < a.txt > a.tmp && mv a.tmp a.txt" {
		t.Fatalf("new task record: %s", body)
	}
	// The page's new task is in the operation log, as git nudge queue is.
	if _, _, ops := s.do("GET", "/api/ops", true, nil); !strings.Contains(string(ops), `"kind":"queue"`) || !strings.Contains(string(ops), `"shout"`) {
		t.Fatalf("the new task is not in the op log:\n%s", ops)
	}
	s.waitState("t2", "ready")
	_, _, body = s.do("GET", "/api/nudge/tasks/t2/diff", true, nil)
	if !strings.Contains(string(body), `+OLD`) {
		t.Fatalf("t2's diff: %s", body)
	}
	if got := readFile(t, dir, "a.txt"); got != "old\n" {
		t.Fatalf("a task changed the workspace: %q", got)
	}
}

// Under --no-execution the page starts no task.
func TestNewTaskNoExecution(t *testing.T) {
	t.Parallel()
	dir := workspace(t)
	testutil.Git(t, dir, "config", "nudge.command.shout", "true")
	h := serve(t, dir, func(o *dashboard.Options) { o.NoExecution = true })
	if _, _, body := h.do("GET", "/api/nudge/commands", true, nil); !strings.Contains(string(body), `"execution":false`) {
		t.Fatalf("commands: %s", body)
	}
	code, _, body := h.do("POST", "/api/nudge/queue/shout", true, nil)
	if doc := errorDoc(t, body); code != http.StatusConflict || !strings.Contains(strings.Join(doc.Reasons, " "), "--no-execution") {
		t.Fatalf("new task with --no-execution: %d %s", code, body)
	}
	if out := nudge(t, dir, "list"); strings.Contains(out, "t2") {
		t.Fatalf("a refused request made a task:\n%s", out)
	}
}
