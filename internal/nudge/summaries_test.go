package nudge

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Summaries lists the records newest first, names a corrupt one, and
// leaves out files that are not records.
func TestSummaries(t *testing.T) {
	dir := t.TempDir()
	w := &Workspace{Dir: dir}
	write := func(name, content string) {
		if err := os.MkdirAll(w.TasksDir(), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(w.TasksDir(), name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := w.Summaries(); err != nil || len(got) != 0 {
		t.Fatalf("no tasks folder: %v %v", got, err)
	}
	write("t2.json", `{"id":"t2","state":"ready"}`)
	write("t10.json", `{"version":1,"id":"t10","state":"ready","note":"a \"quoted\" note","files":[{"path":"a.txt","status":"A"}],"future":{"x":[1]}}`)
	write("t3.lock", ``)
	write("notes.json", `{`)
	got, err := w.Summaries()
	if err != nil || len(got) != 2 || got[0].ID != "t10" || got[1].ID != "t2" {
		t.Fatalf("got %+v, %v", got, err)
	}
	write("t4.json", `{"id":"t5","state":"ready"}`)
	if _, err := w.Summaries(); err == nil || !strings.Contains(err.Error(), "t4.json is corrupt") {
		t.Fatalf("record of another id: %v", err)
	}
	write("t4.json", `{"id":"t4","state":"ready"`)
	if _, err := w.Summaries(); err == nil || !strings.Contains(err.Error(), "t4.json is corrupt") {
		t.Fatalf("truncated record: %v", err)
	}
}

// Every state Reconcile settles is found by the one search unsettled
// makes, wherever it is in the record; other states are not.
func TestMayBeUnsettled(t *testing.T) {
	for _, s := range unsettledStates {
		if !bytes.HasSuffix(s, ingQuote) {
			t.Fatalf("%s does not end in %s: mayBeUnsettled would miss it", s, ingQuote)
		}
		for _, rec := range []string{`{"state":` + string(s) + `}`, `{"note":"thing","state": ` + string(s) + `,"x":"ing"}`, string(s)} {
			if !mayBeUnsettled([]byte(rec)) {
				t.Fatalf("missed %s", rec)
			}
		}
	}
	for _, rec := range []string{`{"state":"ready","note":"nothing"}`, `{"state":"pending"}`, `ing"`, `"unning"`, ``} {
		if mayBeUnsettled([]byte(rec)) {
			t.Fatalf("%s is settled", rec)
		}
	}
}
