package dashboard_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/dashboard"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

func TestNewRunFromConfiguredCommand(t *testing.T) {
	t.Parallel()
	dir := workspace(t)
	h := serve(t, dir)
	if _, _, body := h.do("GET", "/api/autodev/commands", true, nil); strings.TrimSpace(string(body)) != `{"commands":[],"execution":true}` {
		t.Fatalf("no commands: %s", body)
	}
	// A command that runs until it is stopped (or a file outside the
	// work tree appears).
	stop := filepath.Join(testutil.RealTempDir(t), "stop")
	testutil.Git(t, dir, "config", "autodev.command.agent", "while [ ! -e '"+stop+"' ]; do sleep 0.05; done")
	_, _, body := h.do("GET", "/api/autodev/commands", true, nil)
	if !strings.Contains(string(body), `{"name":"agent","command":"while [ ! -e`) {
		t.Fatalf("commands: %s", body)
	}
	if code, _, _ := h.do("GET", "/api/autodev/run/agent", true, nil); code != http.StatusMethodNotAllowed {
		t.Fatalf("GET of a run: %d", code)
	}
	if code, _, body := h.do("POST", "/api/autodev/run/nope", true, nil); code != http.StatusNotFound {
		t.Fatalf("unknown command: %d %s", code, body)
	}
	code, _, body := h.do("POST", "/api/autodev/run/agent", true, nil)
	if code != http.StatusOK || !strings.Contains(string(body), `"ended":false`) {
		t.Fatalf("start: %d %s", code, body)
	}
	_, _, body = h.do("GET", "/api/autodev/status", true, nil)
	if !strings.Contains(string(body), `"active":true`) {
		t.Fatalf("status during the run: %s", body)
	}
	for _, p := range []string{"/api/autodev/run/agent", "/api/autodev/restore/c1"} {
		code, _, body = h.do("POST", p, true, nil)
		if doc := errorDoc(t, body); code != http.StatusConflict || len(doc.Reasons) != 1 || doc.Reasons[0] != "only while the run is stopped" {
			t.Fatalf("%s during the run: %d %s", p, code, body)
		}
	}
	// Shutting the server down stops the run it started, process group
	// and all, before it returns.
	h.srv.Close()
	if held, err := journal.Held(filepath.Join(dir, ".autodev", "run.lock")); held || err != nil {
		t.Fatalf("run.lock still held after Close: %v %v", held, err)
	}
	if !strings.Contains(readFile(t, dir, ".autodev/state.json"), `"status": "error"`) && !strings.Contains(readFile(t, dir, ".autodev/state.json"), `"status":"error"`) {
		t.Fatalf("state after the stopped run: %s", readFile(t, dir, ".autodev/state.json"))
	}
}

func TestNoExecution(t *testing.T) {
	t.Parallel()
	dir := workspace(t)
	testutil.Git(t, dir, "config", "autodev.command.agent", "true")
	h := serve(t, dir, func(o *dashboard.Options) { o.NoExecution = true })
	_, _, body := h.do("GET", "/api/autodev/commands", true, nil)
	if !strings.Contains(string(body), `"execution":false`) {
		t.Fatalf("commands: %s", body)
	}
	code, _, body := h.do("POST", "/api/autodev/run/agent", true, nil)
	if doc := errorDoc(t, body); code != http.StatusConflict || !strings.Contains(strings.Join(doc.Reasons, " "), "--no-execution") {
		t.Fatalf("run with --no-execution: %d %s", code, body)
	}
}
