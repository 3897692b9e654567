package journal

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

type rec struct {
	ID string `json:"id"`
}

// An append in place writes what a whole rewrite would, and a torn one
// (note durable, half the bytes on disk) reads, and is put back, as the
// version before it.
func TestAppendInPlaceAndTornRepair(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "checkpoints.json")
	if err := Write(path, []rec{{"c1"}, {"c2"}}); err != nil {
		t.Fatal(err)
	}
	prev, _ := os.ReadFile(path)
	want, _ := Encode([]rec{{"c1"}, {"c2"}, {"c3"}})
	got, ok, err := AppendInPlace(nil, path, bytes.Clone(prev), []rec{{"c3"}}, nil)
	if err != nil || !ok || !bytes.Equal(got, want) {
		t.Fatalf("append: ok %v err %v\n%s", ok, err, got)
	}
	if disk, _ := os.ReadFile(path); !bytes.Equal(disk, want) {
		t.Fatalf("on disk:\n%s", disk)
	}
	if AppendPending(path) {
		t.Fatal("the note was not emptied")
	}

	// A torn append: the note says what was to be written, the file holds
	// half of it.
	at := int64(bytes.LastIndexByte(want, '}') + 1)
	more, _, _ := AppendArray(want, []rec{{"c4"}})
	add := more[at:]
	if err := writeNote(path, AppendNote{At: at, Old: want[at:], New: add}); err != nil {
		t.Fatal(err)
	}
	torn := append(bytes.Clone(want[:at]), add[:len(add)/2]...)
	if err := os.WriteFile(path, torn, 0o644); err != nil {
		t.Fatal(err)
	}
	if v, err := ReadAppendable(path); err != nil || !bytes.Equal(v, want) {
		t.Fatalf("a torn append reads as:\n%s (%v)", v, err)
	}
	if err := RepairAppend(path); err != nil {
		t.Fatal(err)
	}
	if disk, _ := os.ReadFile(path); !bytes.Equal(disk, want) || AppendPending(path) {
		t.Fatalf("after repair (note pending %v):\n%s", AppendPending(path), disk)
	}

	// A note left behind on a file that is valid as it is changes nothing.
	if err := writeNote(path, AppendNote{At: 3, Old: []byte("x"), New: []byte("y")}); err != nil {
		t.Fatal(err)
	}
	if v, _ := ReadAppendable(path); !bytes.Equal(v, want) {
		t.Fatalf("a stale note changed what is read:\n%s", v)
	}
	if err := RepairAppend(path); err != nil {
		t.Fatal(err)
	}
	if disk, _ := os.ReadFile(path); !bytes.Equal(disk, want) {
		t.Fatalf("a stale note cut the file:\n%s", disk)
	}
}

// Given only the file's end and the digest of what comes before, an
// append writes the same bytes and carries the digest forward.
func TestAppendInPlaceAtWindow(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "checkpoints.json")
	var recs []rec
	for i := 0; i < 200; i++ {
		recs = append(recs, rec{ID: "c" + string(rune('a'+i%26))})
	}
	if err := Write(path, recs); err != nil {
		t.Fatal(err)
	}
	prev, _ := os.ReadFile(path)
	_, w, ok, err := AppendInPlaceAt(nil, path, Window{Bytes: bytes.Clone(prev)}, []rec{{"x1"}}, nil)
	if err != nil || !ok || w.Digest == nil {
		t.Fatalf("first append: ok %v err %v digest %v", ok, err, w.Digest != nil)
	}
	disk, _ := os.ReadFile(path)
	base := int64(len(disk) - 300)
	w = Window{Base: base, Bytes: disk[base:], Digest: w.Digest, DigestAt: w.DigestAt}
	got, _, ok, err := AppendInPlaceAt(nil, path, w, []rec{{"x2"}}, nil)
	if err != nil || !ok {
		t.Fatalf("second append: ok %v err %v", ok, err)
	}
	want, _ := Encode(append(recs, rec{"x1"}, rec{"x2"}))
	disk, _ = os.ReadFile(path)
	if !bytes.Equal(disk, want) || !bytes.Equal(got, want[base:]) {
		t.Fatalf("on disk:\n%s", disk[len(disk)-200:])
	}
	// A window that is not the file's end is refused, nothing written.
	if _, _, ok, _ := AppendInPlaceAt(nil, path, Window{Base: base, Bytes: disk[base : len(disk)-1]}, []rec{{"x3"}}, nil); ok {
		t.Fatal("appended through a stale window")
	}
}
