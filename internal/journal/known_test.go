package journal_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/journal"
)

type knownRecord struct {
	ID    string  `json:"id"`
	Label string  `json:"label"`
	Task  *string `json:"task"`
	N     int     `json:"n,omitempty"`
}

// extraByMap is what UnmarshalKnown returned before it scanned members
// itself: every member decoded into a map, less those the struct claims.
func extraByMap(t *testing.T, data []byte) journal.Extra {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatalf("%q: %v", data, err)
	}
	for k := range all {
		for _, c := range []string{"id", "label", "task", "n"} {
			if strings.EqualFold(k, c) {
				delete(all, k)
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	return journal.Extra(all)
}

// UnmarshalKnown keeps exactly the members a struct does not claim: the
// same as decoding the whole object into a map, whatever the values hold
// (nesting, escapes, strings with brackets, duplicate keys, odd spacing).
func FuzzUnmarshalKnown(f *testing.F) {
	for _, s := range []string{
		`{}`, ` { } `, `null`, `{"id":"c1","label":"x"}`,
		`{"id":"c1","future":{"x":[1,2,"three"]},"later":"}]\"{"}`,
		`{"ID":"c1","Label":"x","n":3,"k":true,"z":null,"f":-1.5e3}`,
		`{"a":1,"a":2}`, `{"\u0069d":"c1","\u00e9":"e"}`, "{\"\xff\":1}",
		"{ \"a\" :\n[ {\"b\" : [ ] } ] ,\t\"task\" : \"t\" }",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var rec knownRecord
		extra, err := journal.UnmarshalKnown(data, &rec)
		var want knownRecord
		if json.Unmarshal(data, &want) != nil {
			if err == nil {
				t.Fatalf("%q: accepted what encoding/json refuses", data)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		if !reflect.DeepEqual(rec, want) {
			t.Fatalf("%q: decoded %+v, encoding/json %+v", data, rec, want)
		}
		if w := extraByMap(t, data); !reflect.DeepEqual(extra, w) {
			t.Fatalf("%q: extra %q, want %q", data, extra, w)
		}
	})
}
