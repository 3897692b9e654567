package dashboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	autodevpkg "github.com/nudgethis/git-nudge/internal/autodev"
	"github.com/nudgethis/git-nudge/internal/cli/dashboardcmd"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// replaceKeepingStat rewrites path as the journals are written (a new
// file renamed over it) with content of the same size, then gives it the
// old modification time: only the inode tells the versions apart.
func replaceKeepingStat(t *testing.T, path string, edit func([]byte) []byte) {
	t.Helper()
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	b := edit(bytes.Clone(old))
	if len(b) != len(old) || bytes.Equal(b, old) {
		t.Fatalf("the edit must keep the size and change the content")
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// age sets path's modification time an hour back, so that the server
// trusts what it read from it (journal.Racy).
func age(t *testing.T, path string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}

// The list APIs keep what they decoded while the files are the same, and
// never show an old version: every change from the command line shows on
// the next request, even one that keeps a file's size and time.
func TestListsFollowEveryChange(t *testing.T) {
	t.Parallel()
	dir := workspace(t)
	testutil.WriteFile(t, dir, "b.txt", "b\n")
	autodev(t, dir, "checkpoint", "-m", "add b")
	h := serve(t, dir)
	rec := filepath.Join(dir, ".nudgethis", "tasks", "t1.json")
	cps := filepath.Join(dir, ".autodev", "checkpoints.json")
	age(t, rec)
	age(t, cps)
	get := func(p string) string {
		t.Helper()
		code, _, body := h.do("GET", p, true, nil)
		if code != 200 {
			t.Fatalf("GET %s: %d %s", p, code, body)
		}
		return string(body)
	}
	for range 2 { // read, then answered from what was read
		if b := get("/api/nudge/tasks"); !strings.Contains(b, `"note":"rewrite a.txt"`) {
			t.Fatalf("tasks: %s", b)
		}
		if b := get("/api/autodev/checkpoints"); !strings.Contains(b, `"label":"thread — add b"`) {
			t.Fatalf("checkpoints: %s", b)
		}
	}
	replaceKeepingStat(t, rec, func(b []byte) []byte { return bytes.Replace(b, []byte("rewrite a.txt"), []byte("REWRITE A.TXT"), 1) })
	replaceKeepingStat(t, cps, func(b []byte) []byte { return bytes.Replace(b, []byte("add b"), []byte("ADD B"), 1) })
	if b := get("/api/nudge/tasks"); !strings.Contains(b, `"note":"REWRITE A.TXT"`) {
		t.Fatalf("tasks after the record changed: %s", b)
	}
	if b := get("/api/autodev/checkpoints"); !strings.Contains(b, `"label":"thread — ADD B"`) {
		t.Fatalf("checkpoints after the journal changed: %s", b)
	}
	if b := get("/api/autodev/status"); !strings.Contains(b, `"checkpoints":1`) {
		t.Fatalf("status: %s", b)
	}

	// The command line: a new task, an apply, a dropped task, a new
	// checkpoint and HEAD moving.
	nudge(t, dir, "snapshot", "-m", "second")
	nudge(t, dir, "apply", "t1")
	if b := get("/api/nudge/tasks"); !strings.Contains(b, `"id":"t2"`) || !strings.Contains(b, `"state":"applied"`) {
		t.Fatalf("tasks after snapshot and apply: %s", b)
	}
	nudge(t, dir, "drop", "t2")
	if b := get("/api/nudge/tasks"); strings.Contains(b, `"id":"t2"`) {
		t.Fatalf("tasks after drop: %s", b)
	}
	autodev(t, dir, "checkpoint", "-m", "after apply")
	b := get("/api/autodev/checkpoints")
	if !strings.Contains(b, `"label":"thread — after apply"`) || !strings.Contains(b, `"id":"c2"`) {
		t.Fatalf("checkpoints after a checkpoint: %s", b)
	}
	if b := get("/api/autodev/status"); !strings.Contains(b, `"checkpoints":2`) {
		t.Fatalf("status after a checkpoint: %s", b)
	}
	age(t, cps)
	get("/api/autodev/checkpoints")
	autodev(t, dir, "restore", "c1")
	b = get("/api/autodev/checkpoints")
	// c1 is HEAD now; the list is newest first.
	if i := strings.Index(b, `"id":"c1"`); i < 0 || !strings.Contains(b[i:], `"head":true`) {
		t.Fatalf("checkpoints after a restore: %s", b)
	}
}

// The checkpoint list encoded entry by entry (Shapes.ListJSON) is byte
// for byte the document Shapes.List encodes to.
func TestListJSONIsList(t *testing.T) {
	t.Parallel()
	dir := workspace(t)
	testutil.WriteFile(t, dir, "b.txt", "b\n")
	autodev(t, dir, "checkpoint", "-m", "make > log && <b> ünïcode", "--task", "T-1")
	testutil.WriteFile(t, dir, "b.txt", "b2\n")
	autodev(t, dir, "checkpoint", "-m", "second")
	cps := filepath.Join(dir, ".autodev", "checkpoints.json")
	b, err := os.ReadFile(cps)
	if err != nil {
		t.Fatal(err)
	}
	// A field from a newer version survives.
	b = bytes.Replace(b, []byte(`"id": "c1"`), []byte(`"future": {"x": [1, 2]}, "id": "c1"`), 1)
	if err := os.WriteFile(cps, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := autodevpkg.Open(context.Background(), dir, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ws.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	shapes := dashboardcmd.Shapes()
	got, err := shapes.ListJSON(l)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(shapes.List(l)); err != nil {
		t.Fatal(err)
	}
	again, err := shapes.ListJSON(l) // from what the first call encoded
	if err != nil || !bytes.Equal(again, got) {
		t.Fatalf("ListJSON again: %v\n%s\n%s", err, again, got)
	}
	// ListJSON keeps encodings by every field of an entry: a new field
	// must be added to its key (entryKey in internal/cli/autodevcmd).
	if n := reflect.TypeOf(autodevpkg.Entry{}).NumField(); n != 12 {
		t.Fatalf("autodev.Entry has %d fields, entryKey knows 12: add the new ones to it", n)
	}
	if string(got)+"\n" != want.String() || !strings.Contains(want.String(), `"future":{"x":[1,2]}`) || !strings.Contains(want.String(), "make > log") {
		t.Fatalf("ListJSON:\n%s\nList:\n%s", got, want.String())
	}
}
