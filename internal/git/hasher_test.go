package git

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// A kept hash-object process answers as a new one would: a file changed
// between two calls hashes to its new content, a file git cannot read is
// an error naming it, after which the next call works again, and a long
// list does not stall on full pipes.
func TestHasherKeepsOneProcess(t *testing.T) {
	t.Parallel()
	r := newApplyRepo(t, "core.autocrlf", "true")
	ctx := context.Background()
	h := r.NewHasher()
	defer h.Close()
	writeT(t, r.WorkTree, "a.txt", "one\r\n", 0o644)
	writeT(t, r.WorkTree, "sp ace\nnl.txt", "x\n", 0o644)
	first, err := h.HashFiles(ctx, []string{"a.txt", "sp ace\nnl.txt"})
	if err != nil {
		t.Fatal(err)
	}
	want, err := r.HashFiles(ctx, []string{"a.txt", "sp ace\nnl.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(first, " ") != strings.Join(want, " ") {
		t.Errorf("kept process %v, new process %v", first, want)
	}
	p := h.p
	writeT(t, r.WorkTree, "a.txt", "two\r\n", 0o644)
	second, err := h.HashFiles(ctx, []string{"a.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if h.p != p {
		t.Error("a second call started another process")
	}
	if want := gitT(t, r.WorkTree, "hash-object", "a.txt"); second[0] != want {
		t.Errorf("after a change: %s, want %s", second[0], want)
	}
	if _, err := h.HashFiles(ctx, []string{"a.txt", "missing.txt"}); err == nil || !strings.Contains(err.Error(), "missing.txt") {
		t.Errorf("a missing file: %v, want git's complaint naming it", err)
	}
	var many []string
	for i := 0; i < 3000; i++ {
		many = append(many, "a.txt")
	}
	ids, err := h.HashFiles(ctx, many)
	if err != nil || len(ids) != len(many) || ids[2999] != second[0] {
		t.Fatalf("3000 paths after an error: %d ids, %v", len(ids), err)
	}
	if err := h.Close(); err != nil {
		t.Error(fmt.Errorf("close: %w", err))
	}
}
