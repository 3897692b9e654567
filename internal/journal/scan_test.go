package journal_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/journal"
)

type member struct{ key, raw string }

// scanMembers is ScanObject's view of data, or its error.
func scanMembers(data []byte) ([]member, error) {
	var got []member
	err := journal.ScanObject(data, func(k, raw []byte) error {
		got = append(got, member{string(k), string(raw)})
		return nil
	})
	return got, err
}

// ScanObject accepts exactly what json.Valid accepts, and hands over an
// object's members as they are, in order: the same keys and values as
// decoding the object into raw messages.
func FuzzScanObject(f *testing.F) {
	for _, s := range []string{
		`{"version":1,"id":"t1","files":[{"path":"a"},null],"undo":null}`, `[]`, `null`, `{}`, ` { } `, `{"a":1}}`, `{"a":`, "",
		"\xef\xbb\xbf{}", `{"id":"\ud800"}`, `{"a":-0.5e+3,"b":[true,false,null]}`, `{"a":01}`, `{"a":1.}`, `{"a":"\x01"}`,
		`{"a":"\q"}`, `{"a":"\u12g4"}`, `{"a" 1}`, `{"a":1,}`, `[1,]`, `{"a":[1 2]}`, `{"k\"ey":"v\\"}`, "{\"a\":\"\xff\"}", `-`, `1e`, `tru`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := scanMembers(data)
		valid := json.Valid(data)
		if valid != (err == nil || errors.Is(err, journal.ErrNotObject)) {
			t.Fatalf("json.Valid = %v but ScanObject = %v for %q", valid, err, data)
		}
		if err != nil {
			return
		}
		var obj map[string]json.RawMessage
		if uerr := json.Unmarshal(data, &obj); uerr != nil {
			t.Fatalf("ScanObject took %q as an object; json says %v", data, uerr)
		}
		for _, m := range got {
			var key string
			if err := json.Unmarshal([]byte(`"`+m.key+`"`), &key); err != nil {
				t.Fatalf("key %q: %v", m.key, err)
			}
			if !json.Valid([]byte(m.raw)) {
				t.Fatalf("value %q of %q is not valid JSON", m.raw, key)
			}
			if _, ok := obj[key]; !ok {
				t.Fatalf("key %q is not in the object", key)
			}
			if len(m.raw) == 0 || m.raw[0] == ' ' || m.raw[len(m.raw)-1] == ' ' {
				t.Fatalf("value %q has space around it", m.raw)
			}
			obj[key] = nil // seen
		}
		if len(got) < len(obj) {
			t.Fatalf("ScanObject gave %d members, the object has %d keys", len(got), len(obj))
		}
		for _, m := range got {
			if !journal.EachElement([]byte(m.raw), func([]byte) bool { return true }) && strings.HasPrefix(m.raw, "[") {
				t.Fatalf("EachElement refused the array %q", m.raw)
			}
		}
	})
}

// Nesting is limited as encoding/json limits it.
func TestScanObjectDepth(t *testing.T) {
	for _, n := range []int{9998, 9999, 10000, 10001} {
		data := []byte(`{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`)
		_, err := scanMembers(data)
		if valid := json.Valid(data); valid != (err == nil) {
			t.Fatalf("nesting %d: json.Valid = %v, ScanObject = %v", n+1, valid, err)
		}
	}
}

// EachElement walks an array's elements, each as written.
func TestEachElement(t *testing.T) {
	var got []string
	ok := journal.EachElement([]byte(`[ {"a":[1,2]} , "x,]" ,null,3]`), func(e []byte) bool {
		got = append(got, string(e))
		return true
	})
	if want := []string{`{"a":[1,2]}`, `"x,]"`, `null`, `3`}; !ok || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %v %q", ok, got)
	}
	if journal.EachElement([]byte(`{"a":1}`), func([]byte) bool { return true }) {
		t.Fatal("an object is not an array")
	}
	if ok := journal.EachElement([]byte(`[]`), func([]byte) bool { t.Fatal("no elements"); return true }); !ok {
		t.Fatal("empty array")
	}
}

// ReadFile reads whole files of any size, reusing the buffer it is given,
// and reports a missing file as os.ReadFile does.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	var buf []byte
	for _, n := range []int{0, 1, 16 << 10, 16<<10 + 1, 200 << 10} {
		want := strings.Repeat("x", n)
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := journal.ReadFile(p, buf)
		if err != nil || string(got) != want {
			t.Fatalf("%d bytes: got %d, %v", n, len(got), err)
		}
		buf = got
	}
	if _, err := journal.ReadFile(filepath.Join(dir, "missing"), buf); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}
