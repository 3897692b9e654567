package nudge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/testutil"
)

// Names are bytes in saves.json too: a name that is not valid UTF-8 is
// written with paths_b64 and read back as the very bytes, and a newer
// version's field beside the paths survives a rewrite.
func TestSavesKeepNameBytes(t *testing.T) {
	const bad = "dir/lat\xe9.txt"
	testutil.KeepsNameBytes(t, SaveEntry{ID: "s1", Paths: []string{"ok.txt", bad}, Tasks: []string{"t1"}}, "ZGlyL2xhdOkudHh0")

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
