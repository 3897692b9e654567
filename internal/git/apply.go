package git

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// This file holds the batch helpers of nudge apply and undo: hashing many
// work-tree files as git add would, sizing many objects, and producing many
// blobs exactly as git checkout would write them. Each is one git process
// (or two) whatever the number of paths, and none touches the user's index.

// quoteStdinPath quotes p the way git's C-style unquoting reads it back, when
// a plain line would not carry it intact (a newline or carriage return, any
// other control byte, or a leading double quote).
func quoteStdinPath(p string) string {
	need := strings.HasPrefix(p, `"`)
	for i := 0; i < len(p) && !need; i++ {
		if p[i] < 0x20 || p[i] == 0x7f {
			need = true
		}
	}
	if !need {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, `\%03o`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func (r *Repo) validID(id string) bool {
	n := 40
	if r.ObjectFormat == "sha256" {
		n = 64
	}
	if len(id) != n {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

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
		in.WriteString(quoteStdinPath(p))
		in.WriteByte('\n')
	}
	args := append([]string{"hash-object", "--stdin-paths"}, opts...)
	out, err := r.run(ctx, cmd{args: args, stdin: &in})
	if err != nil {
		return nil, err
	}
	ids := strings.Fields(string(out))
	if len(ids) != len(paths) {
		return nil, fmt.Errorf("git hash-object returned %d ids for %d paths", len(ids), len(paths))
	}
	for _, id := range ids {
		if !r.validID(id) {
			return nil, fmt.Errorf("git hash-object returned a malformed id %q", id)
		}
	}
	return ids, nil
}

// privateIndex makes a temporary index file holding entries and returns its
// path and a cleanup function. The user's index is never read or written.
func (r *Repo) privateIndex(ctx context.Context, entries []IndexEntry) (Index, func(), error) {
	ix, cleanup, err := r.emptyPrivateIndex("nudge-apply")
	if err != nil {
		return Index{}, nil, err
	}
	for _, e := range entries {
		if !r.validID(e.Blob) {
			cleanup()
			return Index{}, nil, fmt.Errorf("malformed blob id %q for %s", e.Blob, e.Path)
		}
	}
	if err := r.UpdateIndexEntries(ctx, ix, entries); err != nil {
		cleanup()
		return Index{}, nil, err
	}
	return ix, cleanup, nil
}

// HashIndexed is HashFiles with git add's full rules: each path is hashed
// as if the index held entries[i] for it, so that git's "the index already
// has CRLF here, keep it" rule of core.autocrlf applies. It uses a private
// index (update-index --info-only, then ls-files): three git processes,
// no object written, the user's index untouched.
func (r *Repo) HashIndexed(ctx context.Context, entries []IndexEntry) ([]string, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	ix, cleanup, err := r.privateIndex(ctx, entries)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	var in bytes.Buffer
	for _, e := range entries {
		in.WriteString(e.Path)
		in.WriteByte(0)
	}
	if _, err := r.run(ctx, cmd{args: []string{"update-index", "--info-only", "-z", "--stdin"}, env: ix.env(), stdin: &in}); err != nil {
		return nil, err
	}
	out, err := r.run(ctx, cmd{args: []string{"ls-files", "-s", "-z"}, env: ix.env()})
	if err != nil {
		return nil, err
	}
	byPath := map[string]string{}
	for _, rec := range splitZ(out) {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("unexpected git ls-files record %q", rec)
		}
		byPath[path] = f[1]
	}
	ids := make([]string, len(entries))
	for i, e := range entries {
		id, ok := byPath[e.Path]
		if !ok {
			return nil, fmt.Errorf("git ls-files did not list %s", e.Path)
		}
		ids[i] = id
	}
	return ids, nil
}

// ObjectInfo is what cat-file --batch-check says of one object.
type ObjectInfo struct {
	Type    string // "blob", "tree", ...; "" when missing
	Size    int64
	Missing bool
}

// ObjectInfos looks up many objects with one `git cat-file --batch-check`.
func (r *Repo) ObjectInfos(ctx context.Context, ids []string) ([]ObjectInfo, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var in bytes.Buffer
	for _, id := range ids {
		if !r.validID(id) {
			return nil, fmt.Errorf("malformed object id %q", id)
		}
		in.WriteString(id)
		in.WriteByte('\n')
	}
	out, err := r.run(ctx, cmd{args: []string{"cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)"}, stdin: &in})
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
	_, err = r.run(ctx, cmd{args: []string{"checkout-index", "-a", "-f", "--prefix=" + abs + "/"}, env: ix.env()})
	return err
}
