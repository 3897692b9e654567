package git

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"
)

// BlobRequest is one blob to stream, with the work-tree path whose
// .gitattributes and filters apply to it.
type BlobRequest struct {
	Blob string
	Path string
}

// StreamBlobs writes the content of each blob of reqs, in order, to the
// writer to(i) returns, then calls done(i). With filters the content is
// what git checkout would write at the request's path (smudge and clean
// filters, core.autocrlf, core.eol, .gitattributes text/eol/ident/
// working-tree-encoding, as in the work tree now); without, the bytes as
// stored. One git cat-file --batch process serves all requests; nothing
// is written to the work tree, the index or the object store.
//
// git 2.39's `cat-file --batch --filters` prints the unfiltered size in
// its header while writing the filtered content, so that stream cannot be
// framed by size: after each request a second one names a random object
// id that does not exist, and the content ends where git's "<id> missing"
// answer for it starts. The id is drawn after the blobs were written, so
// no content can contain it.
func (r *Repo) StreamBlobs(ctx context.Context, reqs []BlobRequest, filters bool, to func(i int) (io.Writer, error), done func(i int) error) error {
	if len(reqs) == 0 {
		return nil
	}
	for _, q := range reqs {
		if !r.validID(q.Blob) {
			return fmt.Errorf("malformed blob id %q for %s", q.Blob, q.Path)
		}
		if filters && (q.Path == "" || strings.IndexByte(q.Path, 0) >= 0) {
			return fmt.Errorf("no path to filter %s with", q.Blob)
		}
	}
	var nonce string
	args := []string{"cat-file", "--batch"}
	if filters {
		b := make([]byte, len(r.ZeroID())/2)
		if _, err := rand.Read(b); err != nil {
			return err
		}
		nonce = hex.EncodeToString(b)
		args = append(args, "--filters", "-z")
	}
	cat, err := r.startProc(ctx, args...)
	if err != nil {
		return err
	}
	defer cat.close()
	// Requests go in from their own goroutine while the answers are read
	// here: git answers each before reading the next, and a pipe holds
	// only so much.
	wrote := make(chan error, 1)
	go func() {
		var in bytes.Buffer
		for _, q := range reqs {
			if filters {
				in.WriteString(q.Blob + " " + q.Path + "\x00" + nonce + " -\x00")
			} else {
				in.WriteString(q.Blob + "\n")
			}
		}
		_, err := cat.in.Write(in.Bytes())
		cat.in.Close()
		wrote <- err
	}()
	marker := []byte(nonce + " missing\n")
	for i, q := range reqs {
		header, err := cat.out.ReadString('\n')
		if err != nil {
			return cat.fail(err)
		}
		f := strings.Fields(header)
		if len(f) != 3 || f[0] != q.Blob || f[1] != "blob" {
			return fmt.Errorf("git cat-file: %s (for %s) is not a blob: %s", q.Blob, q.Path, strings.TrimSpace(header))
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || size < 0 {
			return fmt.Errorf("git cat-file: unexpected header %q", strings.TrimSpace(header))
		}
		w, err := to(i)
		if err != nil {
			return err
		}
		if filters {
			err = copyUntil(w, cat.out, marker)
		} else {
			if _, err = io.CopyN(w, cat.out, size); err == nil {
				if b, rerr := cat.out.ReadByte(); rerr != nil || b != '\n' {
					err = fmt.Errorf("git cat-file: no newline after the content of %s", q.Blob)
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return cat.fail(err)
			}
			return err
		}
		if err := done(i); err != nil {
			return err
		}
	}
	if err := <-wrote; err != nil {
		return cat.fail(err)
	}
	return cat.close()
}

// copyUntil copies from src to w the bytes before "\n" followed by the
// line marker (which ends with a newline), and consumes both.
func copyUntil(w io.Writer, src interface {
	ReadSlice(byte) ([]byte, error)
}, marker []byte) error {
	held := false // a newline read but not yet written: git's separator?
	for {
		seg, err := src.ReadSlice('\n')
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		full := err != nil
		if held && !full && bytes.Equal(seg, marker) {
			return nil
		}
		if held {
			if _, err := w.Write([]byte{'\n'}); err != nil {
				return err
			}
			held = false
		}
		if !full {
			seg, held = seg[:len(seg)-1], true
		}
		if _, err := w.Write(seg); err != nil {
			return err
		}
	}
}

// NewBlobHash returns a hash that, once given size bytes of content,
// sums to the id git gives a blob of that content (git hash-object
// --no-filters), in the repository's object format.
func (r *Repo) NewBlobHash(size int64) hash.Hash {
	var h hash.Hash
	if r.ObjectFormat == "sha256" {
		h = sha256.New()
	} else {
		h = sha1.New()
	}
	fmt.Fprintf(h, "blob %d\x00", size)
	return h
}
