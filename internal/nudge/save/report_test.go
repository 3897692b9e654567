package save

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestReportKeepsNameBytes: a save report naming a file whose name is not
// UTF-8 keeps its bytes (path_b64) instead of replacing them.
func TestReportKeepsNameBytes(t *testing.T) {
	bad := "dir/lat\xe9.txt"
	data, err := json.Marshal(Report{ID: "s1", Paths: []string{"ok.txt", bad}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "\ufffd") || !strings.Contains(string(data), "ZGlyL2xhdOkudHh0") {
		t.Errorf("the report lost the bytes of the name:\n%s", data)
	}
}
