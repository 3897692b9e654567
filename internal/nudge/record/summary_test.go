package record

import (
	"errors"
	"reflect"
	"testing"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// summaryRecord is a record as git-nudge writes it, for the seeds below.
const summaryRecord = `{
  "version": 1,
  "id": "t7",
  "state": "ready",
  "note": "a \"quoted\" note\nsecond line",
  "created": "2026-12-01T10:17:19.027846739Z",
  "workspace": "/w",
  "branch": "refs/heads/main",
  "head": "044940c578c1bfbd0021be19b63ba2e9b501e43b",
  "snapshot": "044940c578c1bfbd0021be19b63ba2e9b501e43b",
  "clean": true,
  "skipped": [],
  "rules": {"protect": [], "skip_dirs": [], "max_untracked": 10000},
  "worktree": null,
  "command": ["sh", "-c", "echo x > a.txt"],
  "exit_code": 0,
  "result": "b5ef58cf84796daf5b4914caaaa7abeb48354ae4",
  "files": [
    {"path": "a.txt", "status": "M", "old_mode": "100644", "old_blob": "89b24ecec50c07aef0d6640a2a9f6dc354a33125", "new_mode": "100644", "new_blob": "a8e4d0edf5705cc64285703d48c663919cab2653"},
    {"path": "\"lat\\351\"", "path_b64": "bGF06Q==", "status": "A", "old_mode": null, "old_blob": null, "new_mode": "100644", "new_blob": "a8e4d0edf5705cc64285703d48c663919cab2653"}
  ],
  "undo": null,
  "applied_at": null,
  "undone_at": null,
  "saved_in": null,
  "error": null,
  "updated": "2026-12-01T10:17:20Z",
  "pid": 4242,
  "validation": {"state": "failed", "commands": [{"command": "make test", "exit_code": 2, "duration_ms": 10}]},
  "future": {"x": [1, 2, "three"]}
}`

// DecodeSummary gives exactly what decoding the whole record and taking
// its Summary gives, and refuses what that refuses, except values of the
// wrong type nested in fields the summary does not read.
func FuzzSummaryDecode(f *testing.F) {
	for _, s := range []string{
		summaryRecord,
		`{"version":1,"id":"t1","state":"ready","files":[],"undo":null}`,
		`{"id":"t1","ID":"t2"}`, `{"id":"t1","id":"t2"}`, `{"id":"t1","note":"a","note":null}`, `{"id":"t1","St\u0061te":"x"}`,
		`{"id":"t1","validation":{"state":"passed"},"validation":{"log":"x"}}`, `{"id":"t1","validation":{"State":"passed"}}`,
		`{"id":"t1","files":[null,{},{"path":5}]}`, `{"id":"t1","files":[1]}`, `{"id":"t1","command":["a",null]}`, `{"id":"t1","command":"x"}`,
		`{"id":"t1","pid":1.5}`, `{"id":"t1","pid":-3,"command_pid":null}`, `{"id":"t1","pid":99999999999999999999}`,
		`{"id":"t1","created":"yesterday"}`, `{"id":"t1","created":null,"branch":null,"result":null}`, `{"id":"t1","clean":"yes"}`,
		`{"id":"t1","undo":5}`, `{"id":"t1","note":"caf\u00e9 \ud83d\ude00"}`, "{\"id\":\"t1\",\"note\":\"\xff\"}", `{"id":"t1","ſtate":"x"}`,
		`null`, `[]`, `{"id":`, `{"id":"t1"}}`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const path = "/w/.nudgethis/tasks/t1.json"
		got, err := DecodeSummary(path, data)
		var full Task
		fullErr := journal.Decode(path, data, &full)
		if fullErr == nil {
			if err != nil {
				t.Fatalf("the record reads in full but its summary does not: %v", err)
			}
			if want := full.Summary(); !reflect.DeepEqual(got, want) {
				t.Fatalf("summary\n%+v\nbut in full\n%+v", got, want)
			}
			return
		}
		if err != nil {
			var ce *journal.CorruptError
			if !errors.As(err, &ce) || ce.Path != path {
				t.Fatalf("error %v (%T) is not a *CorruptError naming %s", err, err, path)
			}
			return
		}
		// Only a nested type error may pass: the document must be valid
		// JSON, and the summary's own fields must read in full.
		if err := journal.ScanObject(data, func(k, raw []byte) error { return nil }); err != nil {
			t.Fatalf("the summary read a record that is not valid JSON: %v", fullErr)
		}
	})
}

// The fast path is taken for the records git-nudge writes, and gives the
// same summary as a full read.
func TestSummaryFastPath(t *testing.T) {
	s, ok := fastSummary([]byte(summaryRecord))
	if !ok {
		t.Fatal("a usual record took the slow path")
	}
	var full Task
	if err := journal.Decode("t7.json", []byte(summaryRecord), &full); err != nil {
		t.Fatal(err)
	}
	if want := full.Summary(); !reflect.DeepEqual(s, want) {
		t.Fatalf("fast\n%+v\nfull\n%+v", s, want)
	}
	if s.Files != 2 || !s.HasResult || s.Validation != ValidationFailed || *s.PID != 4242 || s.Note != "a \"quoted\" note\nsecond line" {
		t.Fatalf("summary %+v", s)
	}
}
