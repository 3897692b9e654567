package git

// This file holds writing files from objects: checking entries out into
// a folder as git would, or byte for byte, and reset --hard.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nudgethis/git-nudge/internal/gitexec"
)

// CheckoutTo writes the blobs of entries into the folder dir (dir/<path>)
// exactly as git checkout would write them into the work tree: smudge and
// clean filters, core.autocrlf, core.eol, .gitattributes text/eol/ident/
// working-tree-encoding, executable bit. The .gitattributes in effect are
// those among entries first, then the work tree's, as for a checkout. Two
// git processes (update-index into a private index, checkout-index); the
// user's index and work tree are not touched. dir must not exist yet or be
// empty.
func (r *Repo) CheckoutTo(ctx context.Context, dir string, entries []IndexEntry) error {
	if len(entries) == 0 {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return err
	}
	ix, cleanup, err := r.privateIndex(ctx, entries)
	if err != nil {
		return err
	}
	defer cleanup()
	_, err = r.run(ctx, cmd{Args: []string{"checkout-index", "-a", "-f", "--prefix=" + abs + "/"}, Env: indexEnv(ix)})
	return err
}

// ResetHard points HEAD (the current branch, or a detached HEAD) at commit
// and makes the user's index and the tracked files of the work tree match
// it, as git reset --hard does. Untracked files are left alone. commit must
// be a full object id: it is never read as a revision expression.
//
// git works on a private copy of the index (named with this process's pid,
// see LeftoverIndexes), which InstallIndex then makes the user's: a reset
// killed half-way leaves only files that are recognisably ours, never the
// user's index.lock, which a later command could not tell from a running
// git's. A user's index.lock present before the reset is an
// *IndexLockedError, a lock of HEAD or its branch (HeadRefLock) a
// *RefLockError naming it (Lock), and nothing is changed.
func (r *Repo) ResetHard(ctx context.Context, commit, reason string) error {
	r.refsAboutToChange("HEAD")
	if !r.ValidID(commit) {
		return fmt.Errorf("ResetHard needs a full commit id, not %q", commit)
	}
	if r.IndexLocked() {
		return &IndexLockedError{Path: r.IndexPath() + ".lock"}
	}
	if l := r.HeadRefLock(); l != "" {
		// git would rewrite the files, then fail to move HEAD.
		return &RefLockError{Lock: l}
	}
	ix, err := r.CopyIndex("autodev")
	if err != nil {
		return fmt.Errorf("copying the index: %w", err)
	}
	env := indexEnv(ix)
	if reason != "" {
		env = append(env, "GIT_REFLOG_ACTION="+reason)
	}
	if _, err := r.run(ctx, cmd{Args: []string{"reset", "-q", "--hard", commit + "^{commit}", "--"}, Env: env}); err != nil {
		os.Remove(ix.Path)
		os.Remove(ix.Path + ".lock")
		return err
	}
	if _, err := os.Stat(ix.Path); errors.Is(err, os.ErrNotExist) {
		// An empty result, which git spells as no file: so is the index.
		if err := os.Remove(r.IndexPath()); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := r.InstallIndex(ix); err != nil {
		os.Remove(ix.Path)
		return fmt.Errorf("HEAD and the files are at %s, but the index could not be replaced (%w); run git reset -q to make it match HEAD", commit, err)
	}
	return nil
}

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
	st := r.NewBlobStreamer(filters)
	if err := st.Stream(ctx, reqs, to, done); err != nil {
		return err
	}
	return st.Close()
}

// BlobStreamer is StreamBlobs with its git cat-file process kept between
// calls: a command that streams blobs twice (apply compares the snapshot's
// files with what checkout writes, then writes the result's) starts one
// process. Each call draws its own nonce, after its blobs were written. A
// BlobStreamer is used by one goroutine at a time; Close ends it.
type BlobStreamer struct {
	r       *Repo
	filters bool
	p       *gitexec.Proc
}

// NewBlobStreamer returns a BlobStreamer (with or without git's filters)
// whose process starts on first use.
func (r *Repo) NewBlobStreamer(filters bool) *BlobStreamer {
	return &BlobStreamer{r: r, filters: filters}
}

// Close ends the git process, if one runs.
func (s *BlobStreamer) Close() error {
	if s == nil || s.p == nil {
		return nil
	}
	err := s.p.Close()
	s.p = nil
	return err
}

// Stream is StreamBlobs through the kept process. After an error the
// process is ended (the next call starts another).
func (s *BlobStreamer) Stream(ctx context.Context, reqs []BlobRequest, to func(i int) (io.Writer, error), done func(i int) error) (err error) {
	if len(reqs) == 0 {
		return nil
	}
	r, filters := s.r, s.filters
	for _, q := range reqs {
		if !r.ValidID(q.Blob) {
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
	if s.p == nil {
		p, err := r.startProc(ctx, args...)
		if err != nil {
			return err
		}
		s.p = p
	}
	cat := s.p
	// Requests go in from their own goroutine while the answers are read
	// here: git answers each before reading the next, and a pipe holds
	// only so much.
	wrote := make(chan error, 1)
	waited := false
	go func() {
		var in bytes.Buffer
		for _, q := range reqs {
			if filters {
				in.WriteString(q.Blob + " " + q.Path + "\x00" + nonce + " -\x00")
			} else {
				in.WriteString(q.Blob + "\n")
			}
		}
		_, err := cat.Stdin().Write(in.Bytes())
		wrote <- err
	}()
	// On any error the process is ended (killed: it may be waiting for
	// room to write answers nobody reads) and the writer waited for; an
	// answer cut short reports git's own complaint when it made one.
	defer func() {
		if err == nil {
			return
		}
		s.p = nil
		cat.Kill()
		if !waited {
			<-wrote
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			if ferr := cat.Fail(err); ExitCode(ferr) > 0 {
				err = ferr
			} else {
				err = cat.Wrap(err)
			}
			return
		}
		_ = cat.Fail(err)
	}()
	marker := []byte(nonce + " missing\n")
	for i, q := range reqs {
		header, err := cat.Stdout().ReadString('\n')
		if err != nil {
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return err
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
			err = gitexec.CopyUntil(w, cat.Stdout(), marker)
		} else {
			if _, err = io.CopyN(w, cat.Stdout(), size); err == nil {
				if b, rerr := cat.Stdout().ReadByte(); rerr != nil || b != '\n' {
					err = fmt.Errorf("git cat-file: no newline after the content of %s", q.Blob)
				}
			}
		}
		if err != nil {
			return err
		}
		if err := done(i); err != nil {
			return err
		}
	}
	waited = true
	return <-wrote
}

// NewBlobHash returns a hash that, once given size bytes of content,
// sums to the id git gives a blob of that content (git hash-object
// --no-filters), in the repository's object format.
func (r *Repo) NewBlobHash(size int64) hash.Hash {
	return r.NewObjectHash("blob", size)
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
		if !r.ValidID(e.Blob) {
			return fmt.Errorf("malformed blob id %q for %s", e.Blob, e.Path)
		}
	}
	cat, err := r.startProc(ctx, "cat-file", "--batch")
	if err != nil {
		return err
	}
	defer cat.Close()
	for _, e := range entries {
		if _, err := io.WriteString(cat.Stdin(), e.Blob+"\n"); err != nil {
			return cat.Fail(err)
		}
		header, err := cat.Stdout().ReadString('\n')
		if err != nil {
			return cat.Fail(err)
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
		if err := writeN(target, cat.Stdout(), size); err != nil {
			return err
		}
		if b, err := cat.Stdout().ReadByte(); err != nil || b != '\n' {
			return fmt.Errorf("git cat-file: no newline after the content of %s", e.Blob)
		}
	}
	return cat.Close()
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
