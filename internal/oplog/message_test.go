package oplog

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMessageSubjectAndRecord(t *testing.T) {
	op := &Op{ID: "o7", Tool: "autodev", Kind: "restore", Args: []string{"restore", "c1"}}
	msg, err := messageOf(op)
	if err != nil {
		t.Fatal(err)
	}
	subject, _, _ := strings.Cut(msg, "\n")
	if subject != "git-nudge op o7: git autodev restore" {
		t.Errorf("subject %q", subject)
	}
	for name, m := range map[string]string{"new": msg, "before subject lines": msg[strings.Index(msg, "{"):]} {
		var back Op
		if err := json.Unmarshal(recordOf(m), &back); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if back.ID != "o7" || back.Kind != "restore" || strings.Join(back.Args, " ") != "restore c1" {
			t.Errorf("%s: read back %+v", name, back)
		}
	}
}
