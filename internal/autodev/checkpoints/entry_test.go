package checkpoints

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/journal"
)

func TestEntryKeepsUnknownFields(t *testing.T) {
	in := `[{"id":"c1","commit":"ab","label":"l","type":"task","time":"t","task":null,"mode":"m","later":{"x":1}}]`
	entries, err := decodeEntries("checkpoints.json", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(entries)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"later":{"x":1}`) || !strings.Contains(string(out), `"task":null`) {
		t.Errorf("re-encoded %s", out)
	}
}

func TestDecodeCorrupt(t *testing.T) {
	for _, in := range []string{``, `{`, `null`, `[1]`, `[{"id": "c1"}] x`, `{"id":"c1"}`, `[{"id": "c1",}]`} {
		_, err := decodeEntries("checkpoints.json", []byte(in))
		var ce *journal.CorruptError
		if !errors.As(err, &ce) || ce.Path != "checkpoints.json" {
			t.Errorf("decode %q: error %v, want a CorruptError naming the file", in, err)
		}
	}
}
