package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// FuzzTaskDecode feeds arbitrary bytes to the task-record decoder (what
// every command does with .nudgethis/tasks/<id>.json). It never panics;
// what it rejects is a *journal.CorruptError naming the file; what it
// accepts encodes again, and that encoding reads back to the same record
// (fields a newer version added survive); and an undo record accepted as
// complete (what undo acts on, patchfiles.UndoSteps) pairs each path with
// itself, over paths the work-tree layer accepts, each side a regular file
// or no file. Seeds are in testdata/fuzz/FuzzTaskDecode.
func FuzzTaskDecode(f *testing.F) {
	for _, s := range []string{
		`{"version":1,"id":"t1","state":"ready","files":[],"undo":null}`,
		`{"id":"t2","undo":{"before":[{"path":"a","mode":"100644","blob":"` + zero40 + `"}],"after":[{"path":"a","mode":null,"blob":null}]}}`,
		`{"id":"t3","future":{"x":[1,2]},"files":[{"path":"../x","status":"A","new_mode":"100644","new_blob":"ab"}]}`,
		`{"id":"t4","files":[{"path":"\"lat\\351\"","path_b64":"bGF06Q==","status":"A"}],"skipped":[{"path":"x","path_b64":"!!","reason":"r"}]}`,
		`{"created":"2026-01-02T03:04:05.123456789+05:30"}`, `null`, `[]`, `{"id":`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const path = "/w/.nudgethis/tasks/t1.json"
		var rec Task
		if err := journal.Decode(path, data, &rec); err != nil {
			var ce *journal.CorruptError
			if !errors.As(err, &ce) || ce.Path != path {
				t.Fatalf("error %v (%T) is not a *CorruptError naming %s", err, err, path)
			}
			return
		}
		enc, err := json.Marshal(rec)
		if err != nil {
			t.Fatalf("a record that reads does not write back: %v", err)
		}
		var again Task
		if err := journal.Decode(path, enc, &again); err != nil {
			t.Fatalf("the record's own encoding does not read back: %v\n%s", err, enc)
		}
		enc2, err := json.Marshal(again)
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("round trip changed the record (%v):\n%s\n%s", err, enc, enc2)
		}
		if CompleteUndo(rec.Undo) {
			for i, b := range rec.Undo.Before {
				a := rec.Undo.After[i]
				if a.Path != b.Path {
					t.Fatalf("undo would pair %q with %q", a.Path, b.Path)
				}
				if worktree.ValidPath(b.Path) != nil {
					t.Fatalf("undo would touch %q", b.Path)
				}
				for _, side := range []PathState{a, b} {
					if Present(side) && !IsRegularMode(side.Mode) {
						t.Fatalf("undo would write %q with mode %v", b.Path, side.Mode)
					}
					if (side.Mode == nil) != (side.Blob == nil) {
						t.Fatalf("undo got a half-absent side for %q", b.Path)
					}
				}
			}
		}
	})
}

const zero40 = "0000000000000000000000000000000000000000"
