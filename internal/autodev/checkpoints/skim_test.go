package checkpoints

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// A checkpoint reads the journal skimmed: the same ids and commits as a
// full read, Find and ByCommit answer the entries in full, and appending
// gives the bytes a full read would.
func TestSkimmedJournalReadsAsFull(t *testing.T) {
	dir := t.TempDir()
	data := `[
  {"id": "c1", "commit": "aaa111", "label": "one", "type": "task", "time": "2026-01-01T00:00:00Z", "task": null, "mode": null},
  {"commit": "bbb222", "id": "c2", "label": "with \"id\": \"c9\" inside", "type": "task", "time": "2026-01-01T00:00:00Z", "task": "T", "mode": null, "agent_session": {"id": "s-1"}},
  {"id": "c\u0033", "commit": "ccc333", "label": "escaped id", "type": "baseline", "time": "2026-01-01T00:00:00Z", "task": null, "mode": null, "future": {"id": "x", "commit": "y"}}
]
`
	if err := os.WriteFile(filepath.Join(dir, "checkpoints.json"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	file := &File{Path: filepath.Join(dir, "checkpoints.json"), Summary: filepath.Join(dir, ".checkpoints.json.summary")}
	full, err := file.load()
	if err != nil {
		t.Fatal(err)
	}
	skim, err := file.LoadSkim()
	if err != nil {
		t.Fatal(err)
	}
	if skim.raw == nil {
		t.Fatal("the journal was not read skimmed: the test checks nothing")
	}
	if len(skim.Entries) != len(full.Entries) {
		t.Fatalf("%d entries skimmed, %d read", len(skim.Entries), len(full.Entries))
	}
	for i, e := range full.Entries {
		if skim.Entries[i].ID != e.ID || skim.Entries[i].Commit != e.Commit {
			t.Errorf("entry %d skimmed as %s %s, read as %s %s", i, skim.Entries[i].ID, skim.Entries[i].Commit, e.ID, e.Commit)
		}
		got, ok := skim.Find(e.ID)
		if !ok || !reflect.DeepEqual(got, e) {
			t.Errorf("Find(%s) = %+v, want %+v", e.ID, got, e)
		}
		got, ok = skim.ByCommit(e.Commit)
		if !ok || !reflect.DeepEqual(got, e) {
			t.Errorf("ByCommit(%s) = %+v, want %+v", e.Commit, got, e)
		}
	}
	if n := skim.NextNumber(); n != 4 {
		t.Errorf("next number %d, want 4", n)
	}
	add := Entry{ID: "c4", Commit: "ddd444", Label: "four", Type: "task", Time: "2026-01-02T00:00:00Z"}
	full.Entries = append(full.Entries, add)
	skim.Entries = append(skim.Entries, add)
	a, _ := full.appended()
	b, _ := skim.appended()
	if a == nil || !bytes.Equal(a, b) {
		t.Errorf("appending to the skimmed journal gives\n%s\nnot\n%s", b, a)
	}
	// Anything but an array of records is read in full (which says what
	// is wrong).
	os.WriteFile(filepath.Join(dir, "checkpoints.json"), []byte(`{"id": "c1", "commit": "x"}`), 0o644)
	if _, err := file.LoadSkim(); err == nil {
		t.Error("an object read as a journal")
	}
}
