package record

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
}
