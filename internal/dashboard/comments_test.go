package dashboard_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// postBody is a POST with a JSON body and the token.
func (h *harness) postBody(path, body string) (int, []byte) {
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

type apiComment struct {
	ID      string `json:"id"`
	Path    string `json:"path"`
	Line    *int   `json:"line"`
	EndLine *int   `json:"end_line"`
	Text    string `json:"text"`
	Time    string `json:"time"`
}

// Review comments through the API: added and deleted by the same code as
// git nudge comment (the command line lists what the API added, and the
// other way round), recorded in the op log as that command, shown in GET
// /api/nudge/tasks/{id} exactly as show --json has them; bad input is 400
// or 409 with the error document and keeps nothing; an unknown task 404.
func TestReviewComments(t *testing.T) {
	t.Parallel()
	h := serve(t, workspace(t))
	code, body := h.postBody("/api/nudge/tasks/t1/comments", `{"path":"a.txt","line":1,"end_line":1,"text":"say why"}`)
	var c apiComment
	if err := json.Unmarshal(body, &c); code != http.StatusOK || err != nil || c.ID != "c1" || c.Path != "a.txt" ||
		c.Line == nil || *c.Line != 1 || c.EndLine == nil || *c.EndLine != 1 || c.Text != "say why" || c.Time == "" {
		t.Fatalf("add: %d %s", code, body)
	}
	if list := nudge(t, h.dir, "comment", "t1", "--list"); !strings.Contains(list, "c1  a.txt:1  ") || !strings.Contains(list, "    say why\n") {
		t.Fatalf("comment --list after the API added one:\n%s", list)
	}
	nudge(t, h.dir, "comment", "t1", "-m", "whole task")
	_, _, body = h.do("GET", "/api/nudge/tasks/t1", true, nil)
	sameJSON(t, "show with comments", body, nudge(t, h.dir, "show", "t1", "--json"))
	var doc struct {
		Comments []apiComment `json:"comments"`
	}
	if err := json.Unmarshal(body, &doc); err != nil || len(doc.Comments) != 2 || doc.Comments[1].ID != "c2" || doc.Comments[1].Line != nil {
		t.Fatalf("GET task: comments %+v (%v)\n%s", doc.Comments, err, body)
	}
	if ops := nudge(t, h.dir, "op", "log"); !strings.Contains(ops, "git nudge comment t1 -m 'say why' --path a.txt --line 1") {
		t.Fatalf("op log does not hold the API's comment:\n%s", ops)
	}

	// Bad input keeps nothing.
	for _, bad := range []struct {
		body string
		code int
		want string
	}{
		{`{"text":""}`, http.StatusConflict, "its text is empty"},
		{`{"text":"x","line":3}`, http.StatusConflict, "names a line but no path"},
		{`{"text":"x","path":"a.txt","line":5,"end_line":2}`, http.StatusConflict, "end before they start"},
		{`{"text":"x","path":"/etc/passwd"}`, http.StatusConflict, "not a path inside the repository"},
		{`{"text":"x","colour":"red"}`, http.StatusBadRequest, "unknown field"},
		{`{"text":"x"} {}`, http.StatusBadRequest, "nothing after it"},
		{`not json`, http.StatusBadRequest, "one JSON object"},
	} {
		code, body := h.postBody("/api/nudge/tasks/t1/comments", bad.body)
		if doc := errorDoc(t, body); code != bad.code || !strings.Contains(doc.Error+strings.Join(doc.Reasons, " "), bad.want) {
			t.Errorf("%s: %d %s, want %d and %q", bad.body, code, body, bad.code, bad.want)
		}
	}
	if code, body := h.postBody("/api/nudge/tasks/t9/comments", `{"text":"x"}`); code != http.StatusNotFound {
		t.Errorf("unknown task: %d %s", code, body)
	}

	// Delete through the API; the command line no longer lists it.
	code, body = h.postBody("/api/nudge/tasks/t1/comments/c1/delete", "")
	if err := json.Unmarshal(body, &c); code != http.StatusOK || err != nil || c.ID != "c1" {
		t.Fatalf("delete: %d %s", code, body)
	}
	if list := nudge(t, h.dir, "comment", "t1", "--list"); strings.Contains(list, "c1") || !strings.Contains(list, "c2") {
		t.Fatalf("comment --list after the API deleted c1:\n%s", list)
	}
	if code, body := h.postBody("/api/nudge/tasks/t1/comments/c1/delete", ""); code != http.StatusConflict {
		t.Fatalf("second delete: %d %s", code, body)
	}
	_, _, body = h.do("GET", "/api/nudge/tasks/t1", true, nil)
	if err := json.Unmarshal(body, &doc); err != nil || len(doc.Comments) != 1 || doc.Comments[0].ID != "c2" {
		t.Fatalf("GET task after delete: %s", body)
	}
}
