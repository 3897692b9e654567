package git

// This file holds what git does in a private index: hashing work-tree
// files as git add would (HashIndexed, HashWorkTreePaths).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/nudgethis/git-nudge/internal/gitexec"
	"github.com/nudgethis/git-nudge/internal/gitindex"
	"io/fs"
	"os"
	"strings"
)

// privateIndex makes a temporary index file holding entries and returns its
// path and a cleanup function. The user's index is never read or written.
func (r *Repo) privateIndex(ctx context.Context, entries []IndexEntry) (Index, func(), error) {
	ix, cleanup, err := r.EmptyPrivateIndex("nudge-apply")
	if err != nil {
		return Index{}, nil, err
	}
	for _, e := range entries {
		if !r.ValidID(e.Blob) {
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
	if _, err := r.run(ctx, cmd{Args: []string{"update-index", "--info-only", "-z", "--stdin"}, Env: indexEnv(ix), Stdin: &in}); err != nil {
		return nil, err
	}
	out, err := r.run(ctx, cmd{Args: []string{"ls-files", "-s", "-z"}, Env: indexEnv(ix)})
	if err != nil {
		return nil, err
	}
	byPath := map[string]string{}
	for _, rec := range gitexec.SplitZ(out) {
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

// Private index files and index.lock: which are whose.
//
// CopyIndex names a private index <name>-<pid>-<random>.index in the git
// dir, so a file left by a process that was killed says which process made
// it. git writes such an index through <file>.lock, which a kill leaves
// too. The user's index.lock is taken by InstallIndex as a hard link to the
// private index it installs, so an index.lock left by a killed install is
// the same file as a private index still beside it: that, and only that,
// proves that the lock is ours. Every other index.lock may belong to a
// running git process and is never removed here.

// HashWorkTreePaths returns, for each path that holds something in the
// work tree now, the entry `git add` would record: content through the
// clean and end-of-line filters, executable bit, symlink, or a
// submodule's checked-out commit; the objects are written. Paths with
// nothing in the work tree are left out. seeds are the user's index entries
// of those paths: git's rules that look at the current entry
// (core.fileMode=false, core.symlinks=false, the autocrlf rule for files
// committed with CRLF) see them as git add would. It works in a small index
// of its own (one update-index call, read back here); the user's index is
// not read or written. attrsChanged tells that a .gitattributes file
// differs between the work tree and the index (git status lists it): git
// may then read the index's copy, which only git does.
func (r *Repo) HashWorkTreePaths(ctx context.Context, seeds []IndexEntry, paths []string, attrsChanged bool) ([]IndexEntry, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	if !attrsChanged {
		if out, ok := r.HashHere(paths); ok {
			return out, nil
		}
	}
	ix, remove, err := r.EmptyPrivateIndex("nudge-hash")
	if err != nil {
		return nil, err
	}
	defer remove()
	args := append(append([]string{}, privateIndexArgs...), "-c", "index.version=2",
		"update-index", "--add", "--remove", "--replace")
	// Seeds ride on the command line while it stays short; past that they
	// take a call of their own.
	argBytes := 0
	for _, s := range seeds {
		argBytes += len(s.Path) + 80
	}
	if argBytes <= 64<<10 {
		for _, s := range seeds {
			args = append(args, "--cacheinfo", s.Mode+","+s.Blob+","+s.Path)
		}
	} else if err := r.UpdateIndexEntries(ctx, ix, seeds); err != nil {
		return nil, err
	}
	args = append(args, "-z", "--stdin")
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(p)
		in.WriteByte(0)
	}
	if _, err := r.run(ctx, cmd{Args: args, Env: indexEnv(ix), Stdin: &in}); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(ix.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // every path was a removal
	}
	if err != nil {
		return nil, err
	}
	return gitindex.ParseIndex(data, r.HashLen())
}

// privateIndexArgs keep a private index self-contained: never split into a
// shared index file in the git dir (gitexec.PrivateIndexArgs).
var privateIndexArgs = gitexec.PrivateIndexArgs
