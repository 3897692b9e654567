package apply

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/nudge"
)

// TestReportsKeepNameBytes: apply's and recover's reports write a name
// that is not valid UTF-8 as its C-quoted form plus path_b64, and read the
// very bytes back.
func TestReportsKeepNameBytes(t *testing.T) {
	const bad = "dir/lat\xe9.txt"
	out := Outcome{ID: "t1", State: nudge.StateApplied, Files: []FileOutcome{{Path: bad, Status: "A"}}}
	rep := Recovery{ID: "t1", Files: []RecoverFile{{Path: bad, Matches: "after", Before: nudge.PathState{Path: bad}, After: nudge.PathState{Path: bad}}},
		Leftovers: []string{"dir/.nudge-x.tmp", bad}, Commands: []string{}}
	for _, v := range []any{out, rep} {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "\ufffd") || !strings.Contains(string(data), "ZGlyL2xhdOkudHh0") {
			t.Errorf("%T lost the bytes of the name:\n%s", v, data)
		}
		switch v := v.(type) {
		case Outcome:
			var o Outcome
			if err := json.Unmarshal(data, &o); err != nil || !reflect.DeepEqual(o, v) {
				t.Errorf("Outcome read back as %+v (%v)", o, err)
			}
		case Recovery:
			var o Recovery
			if err := json.Unmarshal(data, &o); err != nil || !reflect.DeepEqual(o, v) {
				t.Errorf("Recovery read back as %+v (%v)", o, err)
			}
		}
	}
}
