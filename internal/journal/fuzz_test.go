package journal_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// Decode never panics; it accepts exactly the valid JSON documents, and
// everything else is a *CorruptError naming the file. Seeds are in
// testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"version":1,"id":"t1"}`, `[]`, `null`, `{"version":1}}`, `{"a":`, "",
		"\xef\xbb\xbf{}", `{"version":"1"}`, `{"id":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const path = "/some/dir/state.json"
		var anything any
		err := journal.Decode(path, data, &anything)
		valid := json.Valid(data)
		if valid != (err == nil) {
			t.Fatalf("json.Valid = %v but Decode(any) = %v", valid, err)
		}
		checkCorrupt(t, path, err)

		// A typed target: a type mismatch is corruption too, never a
		// panic or a different kind of error.
		var rec struct {
			Version int               `json:"version"`
			ID      string            `json:"id"`
			Files   []string          `json:"files"`
			Meta    map[string]string `json:"meta"`
		}
		err = journal.Decode(path, data, &rec)
		if !valid && err == nil {
			t.Fatalf("Decode(struct) accepted invalid JSON %q", data)
		}
		checkCorrupt(t, path, err)
	})
}

func checkCorrupt(t *testing.T, path string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var ce *journal.CorruptError
	if !errors.As(err, &ce) || ce.Path != path {
		t.Fatalf("Decode error %v (%T) is not a *CorruptError for %s", err, err, path)
	}
}
