package dashboard_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/testutil"
)

// post sends an authorized POST with a JSON body.
func (h *harness) post(path, body string) (int, []byte) {
	h.t.Helper()
	req, err := http.NewRequest("POST", h.url+path, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.srv.Token())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// The apply and undo actions take {"paths","merge","conflicts"}: they go
// through the same workflow as apply/undo -- PATH and apply --merge, the
// task's JSON says which paths are applied, and the operation log records
// the command line that does the same.
func TestPartialApplyUndoAndMergeActions(t *testing.T) {
	t.Parallel()
	dir := testutil.Repo(t)
	testutil.Commit(t, dir, map[string]string{"a.txt": "old\n", "b.txt": "1\n2\n3\n4\n5\n"}, "first")
	nudge(t, dir, "run", "-m", "two files", "--", "sh", "-c", "echo new > a.txt && printf '1\\nTWO\\n3\\n4\\n5\\n' > b.txt")
	h := serve(t, dir)

	code, body := h.post("/api/nudge/tasks/t1/apply", `{"paths":["a.txt"]}`)
	if code != http.StatusOK || readFile(t, dir, "a.txt") != "new\n" || readFile(t, dir, "b.txt") != "1\n2\n3\n4\n5\n" {
		t.Fatalf("apply of a.txt: %d %s; b.txt %q", code, body, readFile(t, dir, "b.txt"))
	}
	var out struct {
		State   string `json:"state"`
		Applied int    `json:"applied"`
		Total   int    `json:"total"`
	}
	if err := json.Unmarshal(body, &out); err != nil || out.Applied != 1 || out.Total != 2 {
		t.Fatalf("apply answered %s", body)
	}
	_, _, task := h.do("GET", "/api/nudge/tasks/t1", true, nil)
	var rec struct {
		Applied struct {
			Count int      `json:"count"`
			Total int      `json:"total"`
			Label string   `json:"label"`
			Paths []string `json:"paths"`
		} `json:"applied"`
	}
	if err := json.Unmarshal(task, &rec); err != nil || rec.Applied.Label != "applied 1/2" || len(rec.Applied.Paths) != 1 || rec.Applied.Paths[0] != "a.txt" {
		t.Fatalf("task JSON: %s", task)
	}
	if code, body = h.post("/api/nudge/tasks/t1/apply", `{"paths":["a.txt"]}`); code != http.StatusConflict || !strings.Contains(string(body), "applied already") {
		t.Fatalf("apply of a.txt again: %d %s", code, body)
	}

	// The user edits b.txt elsewhere: a plain apply refuses, merge merges.
	testutil.WriteFile(t, dir, "b.txt", "1\n2\n3\n4\nfive\n")
	if code, body = h.post("/api/nudge/tasks/t1/apply", `{"paths":["b.txt"]}`); code != http.StatusConflict || !strings.Contains(string(body), "apply --merge t1") {
		t.Fatalf("plain apply of an edited b.txt: %d %s", code, body)
	}
	if code, body = h.post("/api/nudge/tasks/t1/apply", `{"paths":["b.txt"],"merge":true}`); code != http.StatusOK {
		t.Fatalf("merge apply: %d %s", code, body)
	}
	if got := readFile(t, dir, "b.txt"); got != "1\nTWO\n3\n4\nfive\n" {
		t.Fatalf("b.txt after the merge: %q", got)
	}
	ops := nudge(t, dir, "op", "log")
	if !strings.Contains(ops, "apply --merge t1 -- b.txt") {
		t.Fatalf("op log lacks the merge apply:\n%s", ops)
	}

	// Undo of b.txt alone brings back the user's bytes; a.txt stays.
	if code, body = h.post("/api/nudge/tasks/t1/undo", `{"paths":["b.txt"]}`); code != http.StatusOK {
		t.Fatalf("undo of b.txt: %d %s", code, body)
	}
	if readFile(t, dir, "b.txt") != "1\n2\n3\n4\nfive\n" || readFile(t, dir, "a.txt") != "new\n" {
		t.Fatalf("after undo of b.txt: a %q b %q", readFile(t, dir, "a.txt"), readFile(t, dir, "b.txt"))
	}

	// Bad bodies: 400, nothing done.
	for _, b := range []string{`{"paths":["a.txt"],"force":true}`, `not json`, `{"merge":true}`, `{"paths":[""]}`} {
		path := "/api/nudge/tasks/t1/apply"
		if b == `{"merge":true}` {
			path = "/api/nudge/tasks/t1/undo"
		}
		if code, body = h.post(path, b); code != http.StatusBadRequest {
			t.Fatalf("body %s: %d %s", b, code, body)
		}
	}
	if readFile(t, dir, "a.txt") != "new\n" {
		t.Fatal("a refused request changed a.txt")
	}
}
