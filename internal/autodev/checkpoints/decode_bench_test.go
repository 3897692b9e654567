package checkpoints

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
)

func benchJournal(n int, unknown bool) []byte {
	var sb strings.Builder
	sb.WriteString("[\n")
	now := time.Now().UTC()
	extra := ""
	if unknown {
		extra = `,"future":{"x":[1,2,"three"]}`
	}
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, `  {"id":"c%d","commit":"%s","label":%q,"type":"task","time":"%s","task":null,"mode":null%s}`,
			i, strings.Repeat("ab", 20), fmt.Sprintf("thread — step %d", i), now.Format(time.RFC3339), extra)
		if i < n {
			sb.WriteString(",")
		}
		sb.WriteString("\n")
	}
	sb.WriteString("]\n")
	return []byte(sb.String())
}

func BenchmarkDecodeEntries(b *testing.B) {
	for _, unknown := range []bool{false, true} {
		data := benchJournal(10000, unknown)
		b.Run(fmt.Sprint("unknown=", unknown), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := decodeEntries("x", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// decodeEntries agrees with encoding/json decoding the whole file through
// Entry's UnmarshalJSON: same entries, same unknown fields, errors for
// the same inputs.
func FuzzDecodeEntries(f *testing.F) {
	for _, s := range []string{
		`[]`, ` [ ] `, `[{}]`, `null`, `[null]`, `[1]`, `{}`, `[{"id":"c1"}] x`,
		`[{"id":"c1","commit":"ab","label":"thread — x","type":"task","time":"2026-01-01T00:00:00Z","task":null,"mode":null}]`,
		`[{"id":"c1","label":"a\"b\\c\u00e9\n","task":"t","mode":"m"},{"id":"c2","future":[1,{"a":"]"}]}]`,
		`[{"id":"c1","worktree":"/w t","branch":"main"},{"id":"c2","worktree":null,"branch":"HEAD"}]`,
		`[{"id":"c1","id":"c2"}]`, `[{"id":1}]`, `[{"ID":"x"}]`, "[{\"id\":\"\xff\"}]", "[{\"id\":\"a\tb\"}]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeEntries("x", data)
		var want []Entry
		werr := journal.Decode("x", data, &want)
		if werr == nil && want == nil {
			werr = errors.New("null")
		}
		if (err == nil) != (werr == nil) {
			t.Fatalf("%q: decodeEntries error %v, encoding/json %v", data, err, werr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: decodeEntries %+v, encoding/json %+v", data, got, want)
		}
	})
}
