package filecache

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
)

func TestGetPut(t *testing.T) {
	now := time.Now()
	old := now.Add(-time.Hour).UnixNano()
	settled := journal.FileKey{Dev: 1, Ino: 2, Size: 3, Mtime: old, Ctime: old}
	var c Cache[string, int]
	if _, ok := c.Get("a", settled); ok {
		t.Fatal("an empty cache answered")
	}
	if !c.Put("a", settled, now, 7) {
		t.Error("a first Put reports no change")
	}
	if v, ok := c.Get("a", settled); !ok || v != 7 {
		t.Errorf("Get = %d, %v; want 7, true", v, ok)
	}
	other := settled
	other.Ino++
	if _, ok := c.Get("a", other); ok {
		t.Error("another file's key was answered from the cache")
	}
	if c.Put("a", settled, now, 8) {
		t.Error("a Put under the same key reports a change")
	}
	// A version changed just before its read began may share its key with
	// a later one: it is never answered from the cache.
	racy := journal.FileKey{Dev: 1, Ino: 4, Size: 3, Mtime: now.UnixNano(), Ctime: now.UnixNano()}
	c.Put("b", racy, now, 9)
	if _, ok := c.Get("b", racy); ok {
		t.Error("a version changed within journal.Racy of its read was answered")
	}
	if n := c.Keep(func(id string) bool { return id == "a" }); n != 1 || c.Len() != 1 {
		t.Errorf("Keep removed %d, left %d; want 1, 1", n, c.Len())
	}
	if !c.Delete("a") || c.Delete("a") || c.Len() != 0 {
		t.Error("Delete did not forget a, once")
	}
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	var c Cache[string, string]
	reads := 0
	read := func() (string, error) {
		reads++
		b, err := os.ReadFile(path)
		return string(b), err
	}
	for range 2 {
		// Just written: within journal.Racy, so read each time, though
		// its key is stored.
		if v, hit, err := c.Load("f", path, read); err != nil || hit || v != "one" {
			t.Fatalf("Load = %q, %v, %v; want one, false, nil", v, hit, err)
		}
	}
	if reads != 2 || c.Len() != 1 {
		t.Errorf("reads = %d, stored = %d; want 2, 1", reads, c.Len())
	}
	broken := errors.New("unreadable")
	if _, _, err := c.Load("f", path, func() (string, error) { return "", broken }); !errors.Is(err, broken) || c.Len() != 0 {
		t.Errorf("a failed read: err %v, stored %d; want %v, 0", err, c.Len(), broken)
	}
	// A file that is replaced while it is read is not stored.
	if _, _, err := c.Load("f", path, func() (string, error) {
		tmp := path + ".new"
		if err := os.WriteFile(tmp, []byte("two"), 0o644); err != nil {
			return "", err
		}
		return "one", os.Rename(tmp, path)
	}); err != nil || c.Len() != 0 {
		t.Errorf("a file replaced during the read: err %v, stored %d; want nil, 0", err, c.Len())
	}
	// A missing file is read (read says what is wrong) and not stored.
	os.Remove(path)
	if _, _, err := c.Load("f", path, read); err == nil || c.Len() != 0 {
		t.Errorf("a missing file: err %v, stored %d; want an error, 0", err, c.Len())
	}
}
