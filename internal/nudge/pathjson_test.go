package nudge

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// Names are bytes: every record that holds a path writes a name
// that is not valid UTF-8 as its C-quoted form plus path_b64, and reads the
// very bytes back; valid names are written as before.
func TestRecordsKeepNameBytes(t *testing.T) {
	const bad = "dir/lat\xe9.txt"
	mode, blob := "100644", zero40
	task := Task{
		Version: TaskSchema, ID: "t1", State: StateApplied,
		Skipped:       []Skipped{{Path: bad, Reason: "protected path"}, {Path: "ok.txt", Reason: "ignored"}},
		ResultSkipped: []Skipped{{Path: bad, Reason: "ignored"}},
		Files:         []FileChange{{Path: bad, Status: "A", NewMode: &mode, NewBlob: &blob}, {Path: "plain.txt", Status: "D", OldMode: &mode, OldBlob: &blob}},
		Undo: &Undo{
			Before: []PathState{{Path: bad}, {Path: "plain.txt", Mode: &mode, Blob: &blob}},
			After:  []PathState{{Path: bad, Mode: &mode, Blob: &blob}, {Path: "plain.txt"}},
		},
	}
	data, err := json.Marshal(task)
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(data) || strings.Contains(string(data), "\ufffd") {
		t.Fatalf("the record lost bytes:\n%s", data)
	}
	if n := strings.Count(string(data), `"path":"\"dir/lat\\351.txt\"","path_b64":"ZGlyL2xhdOkudHh0"`); n != 5 {
		t.Errorf("want 5 paths written as C-quoted form plus path_b64, got %d:\n%s", n, data)
	}
	if strings.Count(string(data), "path_b64") != 5 {
		t.Errorf("valid names got a path_b64 too:\n%s", data)
	}
	if !strings.Contains(string(data), `{"path":"plain.txt","status":"D"`) {
		t.Errorf("a valid name is not written as before:\n%s", data)
	}
	var back Task
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	back.extra, back.Updated = nil, task.Updated
	if !reflect.DeepEqual(back.Files, task.Files) || !reflect.DeepEqual(back.Skipped, task.Skipped) ||
		!reflect.DeepEqual(back.ResultSkipped, task.ResultSkipped) || !reflect.DeepEqual(back.Undo, task.Undo) {
		t.Errorf("read back differs:\n%+v\n%+v", back, task)
	}

	// saves.json.
	save := SaveEntry{ID: "s1", Paths: []string{"ok.txt", bad}, Tasks: []string{"t1"}}
	for _, v := range []any{save} {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "\ufffd") || !strings.Contains(string(data), "ZGlyL2xhdOkudHh0") {
			t.Errorf("%T lost the bytes of the name:\n%s", v, data)
		}
		switch v := v.(type) {
		case SaveEntry:
			var o SaveEntry
			if err := json.Unmarshal(data, &o); err != nil || !reflect.DeepEqual(o, v) {
				t.Errorf("SaveEntry read back as %+v (%v)", o, err)
			}
		}
	}

	// A newer version's field next to the paths survives a rewrite of saves.json.
	var s SaveEntry
	if err := json.Unmarshal([]byte(`{"id":"s1","paths":["\"lat\\351\""],"paths_b64":["bGF06Q=="],"future":1}`), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Paths) != 1 || s.Paths[0] != "lat\xe9" {
		t.Fatalf("paths_b64 not used: %q", s.Paths)
	}
	again, _ := json.Marshal(s)
	if !strings.Contains(string(again), `"future":1`) || strings.Count(string(again), "paths_b64") != 1 {
		t.Errorf("rewrite lost a field or doubled paths_b64:\n%s", again)
	}
}
