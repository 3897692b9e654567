package git

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
)

// ImportObjects copies every object stored in dir, an object directory a
// confined command wrote into (with this repository's store as its
// read-only alternate), into the repository's object store. The objects go
// through a pack that git unpacks and so hashes again: each lands under
// the id its content hashes to, whatever name it had in dir, and objects
// the store already has are left alone. It returns how many dir held.
func (r *Repo) ImportObjects(ctx context.Context, dir string) (int, error) {
	q := []string{"GIT_OBJECT_DIRECTORY=" + dir}
	out, err := r.run(ctx, cmd{args: []string{"cat-file", "--batch-all-objects", "--batch-check=%(objectname)"}, env: q})
	if err != nil {
		return 0, err
	}
	n := strings.Count(string(out), "\n")
	if n == 0 {
		return 0, nil
	}
	pr, pw := io.Pipe()
	packed := make(chan error, 1)
	go func() {
		_, err := r.run(ctx, cmd{args: []string{"pack-objects", "--stdout", "-q"}, env: q, stdin: bytes.NewReader(out), stdout: pw})
		pw.CloseWithError(err)
		packed <- err
	}()
	_, err = r.run(ctx, cmd{args: []string{"unpack-objects", "-q"}, stdin: pr})
	_ = pr.CloseWithError(errors.New("unpack-objects ended"))
	if perr := <-packed; perr != nil {
		return n, perr
	}
	return n, err
}
