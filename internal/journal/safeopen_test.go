package journal_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// TestStateFilesNeverBlock: a fifo or a symbolic link where a state file
// belongs is a NotRegularError for every way the suite opens one: reading
// or locking a fifo must never wait for a writer.
func TestStateFilesNeverBlock(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, link} {
		checks := map[string]func() error{
			"Read":     func() error { var v any; return journal.Read(p, &v) },
			"ReadFile": func() error { _, err := journal.ReadFile(p, nil); return err },
			"OpenFile for writing": func() error {
				f, err := journal.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
				if err == nil {
					f.Close()
				}
				return err
			},
			"Acquire": func() error {
				l, err := journal.Acquire(context.Background(), p, 0, "test")
				if err == nil {
					l.Release()
				}
				return err
			},
			"Held": func() error { _, err := journal.Held(p); return err },
		}
		for name, check := range checks {
			done := make(chan error, 1)
			go func() { done <- check() }()
			err := <-done // a blocked open never comes back: the test times out
			var nr *journal.NotRegularError
			if !errors.As(err, &nr) {
				t.Errorf("%s of %s: %v, want a NotRegularError", name, filepath.Base(p), err)
			}
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "{}" {
		t.Errorf("the link's target was written through: %q", b)
	}
	// A regular file still reads.
	var v map[string]any
	if err := journal.Read(target, &v); err != nil {
		t.Errorf("a regular file: %v", err)
	}
}
