package git

// This file holds objects: hashing and writing blobs, reading them
// back, asking what the object store holds, importing objects, and the
// modes and size limit of the entries that point at them.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/nudgethis/git-nudge/internal/gitexec"
)

// HashFiles returns, for each work-tree file at paths (relative to the top
// level, regular files only), the blob id git would give its content: clean
// filters, core.autocrlf and .gitattributes eol rules are applied by path,
// as `git add` does. Nothing is written to the object store. One
// `git hash-object --stdin-paths` process serves all paths.
//
// One difference from git add remains: hash-object does not look at the
// index, so a file whose committed blob holds CRLF line endings while
// core.autocrlf converts them hashes differently here. HashIndexed gives
// git add's answer for such paths.
func (r *Repo) HashFiles(ctx context.Context, paths []string) ([]string, error) {
	return r.hashPaths(ctx, paths)
}

// hashPaths runs one git hash-object --stdin-paths (with the extra
// options given) over paths and returns the ids in order, each checked.
func (r *Repo) hashPaths(ctx context.Context, paths []string, opts ...string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(gitexec.QuoteStdinPath(p))
		in.WriteByte('\n')
	}
	args := append([]string{"hash-object", "--stdin-paths"}, opts...)
	out, err := r.run(ctx, cmd{Args: args, Stdin: &in})
	if err != nil {
		return nil, err
	}
	ids := strings.Fields(string(out))
	if len(ids) != len(paths) {
		return nil, fmt.Errorf("git hash-object returned %d ids for %d paths", len(ids), len(paths))
	}
	for _, id := range ids {
		if !r.ValidID(id) {
			return nil, fmt.Errorf("git hash-object returned a malformed id %q", id)
		}
	}
	return ids, nil
}

// ObjectInfos looks up many objects with one `git cat-file --batch-check`.
// Loose and undeltified packed objects are described in this process
// (ObjectInfoInProcess); git is asked only about the others.
func (r *Repo) ObjectInfos(ctx context.Context, ids []string) ([]ObjectInfo, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	for _, id := range ids {
		if !r.ValidID(id) {
			return nil, fmt.Errorf("malformed object id %q", id)
		}
	}
	infos := make([]ObjectInfo, len(ids))
	var ask []string
	var at []int
	here := r.InProcess() && !r.MayReplace() // ObjectInfoInProcess's checks, once
	for i, id := range ids {
		if here {
			if info, ok := r.ObjectInfoHere(id); ok {
				infos[i] = info
				continue
			}
		}
		ask, at = append(ask, id), append(at, i)
	}
	if len(ask) > 0 {
		asked, err := r.objectInfosGit(ctx, ask)
		if err != nil {
			return nil, err
		}
		for k, i := range at {
			infos[i] = asked[k]
		}
	}
	return infos, nil
}

// objectInfosGit is ObjectInfos answered by one git cat-file --batch-check.
func (r *Repo) objectInfosGit(ctx context.Context, ids []string) ([]ObjectInfo, error) {
	var in bytes.Buffer
	for _, id := range ids {
		in.WriteString(id)
		in.WriteByte('\n')
	}
	out, err := r.run(ctx, cmd{Args: []string{"cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)"}, Stdin: &in})
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != len(ids) {
		return nil, fmt.Errorf("git cat-file answered %d lines for %d objects", len(lines), len(ids))
	}
	infos := make([]ObjectInfo, len(ids))
	for i, l := range lines {
		f := strings.Fields(l)
		switch {
		case len(f) == 2 && f[1] == "missing":
			infos[i] = ObjectInfo{Missing: true}
		case len(f) == 3:
			n, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("unexpected git cat-file line %q", l)
			}
			infos[i] = ObjectInfo{Type: f[1], Size: n}
		default:
			return nil, fmt.Errorf("unexpected git cat-file line %q", l)
		}
	}
	return infos, nil
}

// WriteFilesFiltered stores each work-tree file (paths from the top of
// the work tree) as git add would (its clean filter, eol and encoding
// rules applied) and returns the blob ids in order.
func (r *Repo) WriteFilesFiltered(ctx context.Context, paths []string) ([]string, error) {
	return r.hashPaths(ctx, paths, "-w")
}

// WriteBlobs stores the raw bytes of each file (absolute paths, anywhere
// on disk) as blobs, with no filter or end-of-line conversion, and returns
// their ids in order.
func (r *Repo) WriteBlobs(ctx context.Context, paths []string) ([]string, error) {
	return r.HashFilesRaw(ctx, paths, true)
}

// WriteBlob stores data as a blob and returns its id.
func (r *Repo) WriteBlob(ctx context.Context, data []byte) (string, error) {
	out, err := r.run(ctx, cmd{Args: []string{"hash-object", "-w", "--no-filters", "--stdin"}, Stdin: bytes.NewReader(data)})
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(out))
	if !r.ValidID(id) {
		return "", fmt.Errorf("git hash-object returned a malformed id %q", id)
	}
	return id, nil
}

// ReadBlob returns the bytes of blob id.
func (r *Repo) ReadBlob(ctx context.Context, id string) ([]byte, error) {
	if !r.ValidID(id) {
		return nil, fmt.Errorf("%q is not an object id", id)
	}
	return r.git(ctx, "cat-file", "blob", id)
}

// ObjectTypes returns the type of each id ("" when it does not exist):
// loose objects and undeltified packed ones are read here, the rest by one
// git cat-file process.
func (r *Repo) ObjectTypes(ctx context.Context, ids []string) (map[string]string, error) {
	out := map[string]string{}
	var ask []string
	here := r.InProcess() && !r.MayReplace() // a replacement may be of another type
	for _, id := range ids {
		if !r.ValidID(id) {
			out[id] = ""
			continue
		}
		if here {
			if info, ok := r.ObjectInfoHere(id); ok {
				out[id] = info.Type
				continue
			}
		}
		ask = append(ask, id)
	}
	if len(ask) == 0 {
		return out, nil
	}
	res, err := r.run(ctx, cmd{Args: []string{"cat-file", "--batch-check=%(objectname) %(objecttype)"}, Stdin: strings.NewReader(strings.Join(ask, "\n") + "\n")})
	if err != nil {
		return nil, err
	}
	for _, l := range strings.Split(strings.TrimRight(string(res), "\n"), "\n") {
		f := strings.Fields(l)
		if len(f) == 2 && r.ValidID(f[0]) && f[1] != "missing" {
			out[f[0]] = f[1]
		}
	}
	for _, id := range ask {
		if _, ok := out[id]; !ok {
			out[id] = ""
		}
	}
	return out, nil
}

// WriteBlobsData stores each of data as a blob (no filters) with one git
// process, and returns their ids in order.
func (r *Repo) WriteBlobsData(ctx context.Context, data [][]byte) ([]string, error) {
	return r.WriteObjects(ctx, "blob", data)
}

// ObjectType returns the type of object id ("commit", "blob", ...).
func (r *Repo) ObjectType(ctx context.Context, id string) (string, error) {
	return r.line(ctx, "cat-file", "-t", id)
}

// ImportObjects copies every object stored in dir, an object directory a
// confined command wrote into (with this repository's store as its
// read-only alternate), into the repository's object store. The objects go
// through a pack that git unpacks and so hashes again: each lands under
// the id its content hashes to, whatever name it had in dir, and objects
// the store already has are left alone. It returns how many dir held.
func (r *Repo) ImportObjects(ctx context.Context, dir string) (int, error) {
	return r.importObjects(ctx, dir, false)
}

// importObjects is ImportObjects; strict has unpack-objects refuse an
// object that git fsck would call broken, or one that names an object
// neither dir nor the store holds.
func (r *Repo) importObjects(ctx context.Context, dir string, strict bool) (int, error) {
	q := []string{"GIT_OBJECT_DIRECTORY=" + dir}
	out, err := r.run(ctx, cmd{Args: []string{"cat-file", "--batch-all-objects", "--batch-check=%(objectname)"}, Env: q})
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
		_, err := r.run(ctx, cmd{Args: []string{"pack-objects", "--stdout", "-q"}, Env: q, Stdin: bytes.NewReader(out), Stdout: pw})
		pw.CloseWithError(err)
		packed <- err
	}()
	unpack := []string{"unpack-objects", "-q"}
	if strict {
		unpack = append(unpack, "--strict")
	}
	_, err = r.run(ctx, cmd{Args: unpack, Stdin: pr})
	_ = pr.CloseWithError(errors.New("unpack-objects ended"))
	if perr := <-packed; perr != nil {
		return n, perr
	}
	return n, err
}

// Raw bytes: the functions below handle bytes as they are on disk, with no
// filter at all: no
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

// HasObject reports whether the object store holds id.
func (r *Repo) HasObject(ctx context.Context, id string) (bool, error) {
	_, err := r.git(ctx, "cat-file", "-e", id)
	if err != nil {
		if ExitCode(err) == 1 || ExitCode(err) == 128 {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// ObjectSizes returns the size of each object id that exists (a missing
// one is left out): ObjectInfos as a map.
func (r *Repo) ObjectSizes(ctx context.Context, ids []string) (map[string]int64, error) {
	infos, err := r.ObjectInfos(ctx, ids)
	if err != nil {
		return nil, err
	}
	sizes := make(map[string]int64, len(ids))
	for i, in := range infos {
		if !in.Missing {
			sizes[ids[i]] = in.Size
		}
	}
	return sizes, nil
}

// Hasher is HashFiles served by one `git hash-object --stdin-paths` kept
// running between calls: a command that hashes the same files several
// times (apply and undo check them, check them again right before writing
// and verify them after) starts one git process instead of one per look.
// git answers each path as it reads it (hash-object flushes after every
// id) and reads every file afresh, but it reads the .gitattributes files
// once: a Hasher must not outlive a change of attributes (apply and undo
// refuse any .gitattributes path, so theirs cannot). A Hasher is used by
// one goroutine at a time; Close ends it.
type Hasher struct {
	r *Repo
	p *gitexec.Proc
}

// NewHasher returns a Hasher for r; its git process starts on first use.
func (r *Repo) NewHasher() *Hasher { return &Hasher{r: r} }

// HashFiles is Repo.HashFiles through the kept process. After an error
// (git stopped at a file it could not read, say) the process is gone and
// the next call starts another.
func (h *Hasher) HashFiles(ctx context.Context, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	if h.p == nil {
		p, err := h.r.startProc(ctx, "hash-object", "--stdin-paths")
		if err != nil {
			return nil, err
		}
		h.p = p
	}
	p := h.p
	// Paths go in from their own goroutine while the ids are read here:
	// a pipe holds only so much of either.
	wrote := make(chan error, 1)
	go func() {
		var in strings.Builder
		for _, q := range paths {
			in.WriteString(gitexec.QuoteStdinPath(q))
			in.WriteByte('\n')
		}
		_, err := p.Stdin().Write([]byte(in.String()))
		wrote <- err
	}()
	ids := make([]string, len(paths))
	var err error
	for i := range paths {
		line, rerr := p.Stdout().ReadString('\n')
		if rerr != nil {
			err = rerr
			break
		}
		ids[i] = strings.TrimSuffix(line, "\n")
		if !h.r.ValidID(ids[i]) {
			err = fmt.Errorf("git hash-object returned a malformed id %q", ids[i])
			break
		}
	}
	if err != nil {
		// The process is ended (killed, in case it still runs and waits
		// for room to write), the writer then stops, and git's own
		// complaint, if it made one, is the error.
		h.p = nil
		p.Kill()
		<-wrote
		if ferr := p.Fail(err); ExitCode(ferr) > 0 {
			return nil, ferr
		}
		return nil, p.Wrap(err)
	}
	if werr := <-wrote; werr != nil {
		h.p = nil
		return nil, p.Fail(werr)
	}
	return ids, nil
}

// Close ends the git process, if one was started.
func (h *Hasher) Close() error {
	if h == nil || h.p == nil {
		return nil
	}
	err := h.p.Close()
	h.p = nil
	return err
}
