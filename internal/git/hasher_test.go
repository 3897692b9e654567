package git

import (
	"context"
	"fmt"
	"io"
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

// A kept cat-file process streams blobs through git's filters call after
// call, each call framed by its own nonce; a request for an object that
// is not there is an error, after which the next call starts afresh.
func TestBlobStreamerKeepsOneProcess(t *testing.T) {
	t.Parallel()
	r := newApplyRepo(t, "core.autocrlf", "true")
	ctx := context.Background()
	a, err := r.WriteBlob(ctx, []byte("one\ntwo\n"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.WriteBlob(ctx, []byte("three\n"))
	if err != nil {
		t.Fatal(err)
	}
	st := r.NewBlobStreamer(true)
	defer st.Close()
	stream := func(reqs ...BlobRequest) ([]string, error) {
		out := make([]string, len(reqs))
		var buf strings.Builder
		err := st.Stream(ctx, reqs,
			func(int) (io.Writer, error) { buf.Reset(); return &buf, nil },
			func(i int) error { out[i] = buf.String(); return nil })
		return out, err
	}
	got, err := stream(BlobRequest{Blob: a, Path: "a.txt"}, BlobRequest{Blob: b, Path: "b.txt"})
	if err != nil || got[0] != "one\r\ntwo\r\n" || got[1] != "three\r\n" {
		t.Fatalf("first call: %q, %v", got, err)
	}
	p := st.p
	if got, err = stream(BlobRequest{Blob: b, Path: "c.txt"}); err != nil || got[0] != "three\r\n" {
		t.Fatalf("second call: %q, %v", got, err)
	}
	if st.p != p {
		t.Error("the second call started another process")
	}
	if _, err := stream(BlobRequest{Blob: strings.Repeat("1", len(a)), Path: "x.txt"}); err == nil {
		t.Error("a missing blob streamed without an error")
	}
	if got, err = stream(BlobRequest{Blob: a, Path: "a.txt"}); err != nil || got[0] != "one\r\ntwo\r\n" {
		t.Fatalf("after an error: %q, %v", got, err)
	}
}
