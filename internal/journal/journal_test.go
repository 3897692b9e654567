package journal_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
)

type record struct {
	Version int    `json:"version"`
	Note    string `json:"note,omitempty"`
	Pad     string `json:"pad"`
}

func pad(v int) string { return strings.Repeat(string(rune('a'+v%26)), 500+(v*397)%6000) }

// Readers of a journal being rewritten see a whole old version or a whole
// new one, never a mix or an empty file.
func TestWriteAtomicUnderConcurrentReader(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	const versions = 150
	if err := journal.Write(path, record{Version: 0, Pad: pad(0)}); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	var reads int
	var readErr error
	go func() {
		defer wg.Done()
		last := 0
		for {
			select {
			case <-done:
				return
			default:
			}
			var r record
			if err := journal.Read(path, &r); err != nil {
				readErr = fmt.Errorf("read %d: %w", reads, err)
				return
			}
			if r.Version < last || r.Version >= versions || r.Pad != pad(r.Version) {
				readErr = fmt.Errorf("read %d: version %d (after %d) with a pad of %d bytes: not a version that was written", reads, r.Version, last, len(r.Pad))
				return
			}
			last = r.Version
			reads++
		}
	}()
	for v := 1; v < versions; v++ {
		if err := journal.Write(path, record{Version: v, Pad: pad(v)}); err != nil {
			close(done)
			wg.Wait()
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	if readErr != nil {
		t.Fatal(readErr)
	}
	if reads == 0 {
		t.Fatal("the reader never read the file")
	}
	var final record
	if err := journal.Read(path, &final); err != nil || final.Version != versions-1 {
		t.Errorf("final read = %+v, %v; want version %d", final.Version, err, versions-1)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the folder holds %v; temp files were left behind", names)
	}
	t.Logf("%d consistent reads during %d rewrites", reads, versions-1)
}

func TestWriteFormatAndMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "deeper", "saves.json")
	if err := journal.Write(path, record{Version: 1, Note: "<a & b>"}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"version\": 1,\n  \"note\": \"<a & b>\",\n  \"pad\": \"\"\n}\n"
	if string(data) != want {
		t.Errorf("file content = %q, want %q", data, want)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("new journal mode = %v, want 0644", st.Mode().Perm())
	}
	// A rewrite keeps a mode the user chose.
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := journal.Write(path, record{Version: 2}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("rewritten journal mode = %v, want the 0600 it had", st.Mode().Perm())
	}
	var r record
	if err := journal.Read(path, &r); err != nil || r.Version != 2 {
		t.Errorf("Read after rewrite = %+v, %v", r, err)
	}
	if err := journal.Read(filepath.Join(dir, "missing.json"), &r); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read of a missing file = %v, want fs.ErrNotExist", err)
	}
}

// A journal that cannot be parsed is reported with its path, and left
// exactly as it was: bytes, mode and modification time.
func TestReadCorrupt(t *testing.T) {
	t.Parallel()
	valid := `{"version": 3, "note": "x", "pad": "yy"}`
	cases := map[string]string{
		"empty":              "",
		"whitespace":         " \n\t",
		"binary":             "\x00\x01\xff\xfe",
		"trailing value":     valid + ` {"version": 4}`,
		"trailing word":      valid + "\ngarbage",
		"trailing brace":     valid + "}",
		"trailing bracket":   valid + "]",
		"trailing comma":     valid + ",",
		"wrong type":         `{"version": "three"}`,
		"conflict markers":   "<<<<<<< ours\n" + valid + "\n=======\n{}\n>>>>>>> theirs\n",
		"unterminated value": `{"version": 3, "note": "x`,
	}
	// Every proper prefix of a valid document is a truncation.
	for i := 0; i < len(valid); i++ {
		cases[fmt.Sprintf("truncated at %d", i)] = valid[:i]
	}
	dir := t.TempDir()
	stamp := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	n := 0
	for name, content := range cases {
		n++
		path := filepath.Join(dir, fmt.Sprintf("j%d.json", n))
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, stamp, stamp); err != nil {
			t.Fatal(err)
		}
		var r record
		err := journal.Read(path, &r)
		var ce *journal.CorruptError
		if !errors.As(err, &ce) {
			t.Errorf("%s: Read = %v, want *CorruptError", name, err)
			continue
		}
		if ce.Path != path || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %q does not name %s", name, err, path)
		}
		got, _ := os.ReadFile(path)
		st, _ := os.Stat(path)
		if !bytes.Equal(got, []byte(content)) || st.Mode().Perm() != 0o600 || !st.ModTime().Equal(stamp) {
			t.Errorf("%s: the corrupt file changed (content %q, mode %v, mtime %v)", name, got, st.Mode().Perm(), st.ModTime())
		}
	}
	// The same document without the garbage is fine.
	path := filepath.Join(dir, "ok.json")
	if err := os.WriteFile(path, []byte(" \n"+valid+"\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var r record
	if err := journal.Read(path, &r); err != nil || r.Version != 3 || r.Pad != "yy" {
		t.Errorf("Read of a valid file with surrounding whitespace = %+v, %v", r, err)
	}
}

// A non-pointer target is the caller's bug, not a corrupt file.
func TestDecodeBadTarget(t *testing.T) {
	t.Parallel()
	var r record
	err := journal.Decode("x.json", []byte(`{}`), r)
	var ce *journal.CorruptError
	if err == nil || errors.As(err, &ce) {
		t.Errorf("Decode into a non-pointer = %v, want a plain error", err)
	}
}

type taskV1 struct {
	Version int      `json:"version"`
	ID      string   `json:"id"`
	Note    string   `json:"note,omitempty"`
	Files   []string `json:"files,omitempty"`
	Secret  string   `json:"-"`
	Embedded
}

type Embedded struct {
	Base string `json:"base,omitempty"`
}

// A record written by a newer version keeps the fields this version does
// not know through a read-modify-write.
func TestUnknownFieldsSurviveRewrite(t *testing.T) {
	t.Parallel()
	newer := `{
		"version": 1, "id": "t4", "note": "", "base": "abc",
		"future": {"nested": [1, 2, {"deep": true}]},
		"flag": false, "count": 12.5e3, "text": "caf\u00e9 \"quoted\"",
		"-": "dash key", "Secret": "kept"
	}`
	var known taskV1
	extra, err := journal.UnmarshalKnown([]byte(newer), &known)
	if err != nil {
		t.Fatal(err)
	}
	if known.ID != "t4" || known.Base != "abc" {
		t.Fatalf("known fields = %+v", known)
	}
	var keys []string
	for k := range extra {
		keys = append(keys, k)
	}
	wantKeys := map[string]bool{"future": true, "flag": true, "count": true, "text": true, "-": true, "Secret": true}
	if len(keys) != len(wantKeys) {
		t.Errorf("extra keys = %v, want exactly %v (known fields, even empty ones, are not extra)", keys, wantKeys)
	}
	for _, k := range keys {
		if !wantKeys[k] {
			t.Errorf("extra holds %q, which the struct claims", k)
		}
	}

	known.Note = "edited"
	known.Files = []string{"a b.txt"}
	known.Base = "" // cleared: must not come back from the old record
	out, err := journal.MarshalKnown(known, extra)
	if err != nil {
		t.Fatal(err)
	}
	var got, want map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(newer), &want); err != nil {
		t.Fatal(err)
	}
	want["note"] = "edited"
	want["files"] = []any{"a b.txt"}
	delete(want, "base")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after the round trip:\n got %s\nwant %v", out, want)
	}

	// Through the file, twice, nothing drifts.
	path := filepath.Join(t.TempDir(), "task.json")
	for i := 0; i < 2; i++ {
		if err := journal.WriteBytes(path, out); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var again taskV1
		extra, err := journal.UnmarshalKnown(data, &again)
		if err != nil {
			t.Fatal(err)
		}
		if out2, err := journal.MarshalKnown(again, extra); err != nil || !bytes.Equal(out2, out) {
			t.Errorf("round %d changed the record:\n%s\n%s", i, out2, out)
		}
	}

	// A record without unknown fields has no extra, and its encoding is
	// the struct's own.
	var plain taskV1
	extra, err = journal.UnmarshalKnown([]byte(`{"version":1,"id":"t1"}`), &plain)
	if err != nil || extra != nil {
		t.Errorf("extra of a plain record = %v, %v; want nil", extra, err)
	}
	b, _ := journal.MarshalKnown(plain, nil)
	if string(b) != `{"version":1,"id":"t1"}` {
		t.Errorf("MarshalKnown without extra = %s", b)
	}
}

// TestCheckObjectAgreesWithDecode: CheckObject accepts and refuses
// exactly what Decode into a struct accepts and refuses, with the same
// kind of error.
func TestCheckObjectAgreesWithDecode(t *testing.T) {
	for _, in := range []string{
		`{}`, " \n{\"a\": [1, {\"b\": null}]}\n ", `{"a":1}}`, `{"a":1} x`, `{`, ``, `   `,
		`[]`, `"x"`, `null`, `1`, `{"a":}`, "{\"a\":\"\xff\"}", `{"a":1,}`,
	} {
		want := journal.Decode("p", []byte(in), &struct{}{})
		got := journal.CheckObject("p", []byte(in))
		var wc, gc *journal.CorruptError
		if (want == nil) != (got == nil) || errors.As(want, &wc) != errors.As(got, &gc) {
			t.Errorf("%q: CheckObject %v, Decode %v", in, got, want)
		}
	}
}
