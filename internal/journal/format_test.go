package journal

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestCheckFormat(t *testing.T) {
	dir := t.TempDir()
	if err := CheckFormat(dir, 1, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, FormatFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a read-only check wrote the format file: %v", err)
	}
	if err := CheckFormat(dir, 1, true); err != nil {
		t.Fatal(err)
	}
	if n, ok, err := ReadFormat(dir); err != nil || !ok || n != 1 {
		t.Fatalf("ReadFormat = %d, %v, %v", n, ok, err)
	}
	if err := os.WriteFile(filepath.Join(dir, FormatFile), []byte("3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var nf *NewerFormatError
	if err := CheckFormat(dir, 2, true); !errors.As(err, &nf) || nf.Found != 3 || nf.Known != 2 {
		t.Fatalf("newer format: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, FormatFile)); string(b) != "3\n" {
		t.Fatalf("the newer format file was rewritten: %q", b)
	}
	if err := os.WriteFile(filepath.Join(dir, FormatFile), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ce *CorruptError
	if err := CheckFormat(dir, 2, true); !errors.As(err, &ce) {
		t.Fatalf("damaged format file: %v", err)
	}
}

func TestHolderVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "work.lock")
	old := BinaryVersion()
	defer SetBinaryVersion(old)
	SetBinaryVersion("1.2.3")
	l, err := Acquire(t.Context(), path, 0, VersionNote("git-nudge work"))
	if err != nil {
		t.Fatal(err)
	}
	if v := HolderVersion(path); v != "1.2.3" {
		t.Fatalf("HolderVersion = %q", v)
	}
	// Held by this very process through another descriptor: the check
	// sees it held.
	if err := CheckHolderVersion(path); err != nil {
		t.Fatalf("same version refused: %v", err)
	}
	SetBinaryVersion("2.0.0")
	var ov *OtherVersionError
	if err := CheckHolderVersion(path); !errors.As(err, &ov) || ov.Version != "1.2.3" {
		t.Fatalf("other version: %v", err)
	}
	l.Release()
	if err := CheckHolderVersion(path); err != nil {
		t.Fatalf("released lock still refuses: %v", err)
	}
}
