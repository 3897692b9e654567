package git

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// This file handles bytes as they are on disk, with no filter at all: no
// clean or smudge filter, no line-ending conversion, no ident, no
// working-tree-encoding. Undo uses them to bring back a file exactly, when
// the bytes in the work tree were not what git checkout writes for the
// file's blob.

// HashFilesRaw returns, for each file at paths (relative to the work
// tree's top level, or absolute), the id of a blob holding its bytes as
// they are (git hash-object --no-filters). With write the blobs are
// written to the object store. One git process serves all paths.
func (r *Repo) HashFilesRaw(ctx context.Context, paths []string, write bool) ([]string, error) {
	if write {
		return r.hashPaths(ctx, paths, "--no-filters", "-w")
	}
	return r.hashPaths(ctx, paths, "--no-filters")
}

// CheckoutRaw is CheckoutTo without any filter: each blob's bytes are
// written as stored into dir/<path>, replacing a file already there
// (folders made as needed, files 0600; the caller sets the mode where it
// puts them). One git cat-file --batch process serves all entries.
func (r *Repo) CheckoutRaw(ctx context.Context, dir string, entries []IndexEntry) error {
	if len(entries) == 0 {
		return nil
	}
	for _, e := range entries {
		if !r.validID(e.Blob) {
			return fmt.Errorf("malformed blob id %q for %s", e.Blob, e.Path)
		}
	}
	cat, err := r.startProc(ctx, "cat-file", "--batch")
	if err != nil {
		return err
	}
	defer cat.close()
	for _, e := range entries {
		if _, err := io.WriteString(cat.in, e.Blob+"\n"); err != nil {
			return cat.fail(err)
		}
		header, err := cat.out.ReadString('\n')
		if err != nil {
			return cat.fail(err)
		}
		f := strings.Fields(header)
		if len(f) != 3 || f[1] != "blob" {
			return fmt.Errorf("git cat-file: %s (for %s) is not a blob: %s", e.Blob, e.Path, strings.TrimSpace(header))
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || size < 0 {
			return fmt.Errorf("git cat-file: unexpected header %q", strings.TrimSpace(header))
		}
		target := filepath.Join(dir, filepath.FromSlash(e.Path))
		if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
			return err
		}
		if err := os.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := writeN(target, cat.out, size); err != nil {
			return err
		}
		if b, err := cat.out.ReadByte(); err != nil || b != '\n' {
			return fmt.Errorf("git cat-file: no newline after the content of %s", e.Blob)
		}
	}
	return cat.close()
}

// writeN writes the next n bytes of src into a new file at target.
func writeN(target string, src io.Reader, n int64) (err error) {
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	if _, err := io.CopyN(f, src, n); err != nil {
		return fmt.Errorf("writing %s: %w", target, err)
	}
	return nil
}
