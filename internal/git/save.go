package git

import (
	"context"
	"fmt"
	"strings"
)

// IndexEntry is one index entry to set: Mode "" (or "0") and Blob "" remove
// the path from the index.
type IndexEntry struct {
	Path string
	Mode string
	Blob string
}

// UpdateIndexEntries sets or removes the given entries of ix in one
// `update-index --index-info` call, leaving every other entry as it is.
func (r *Repo) UpdateIndexEntries(ctx context.Context, ix Index, entries []IndexEntry) error {
	var in strings.Builder
	for _, e := range entries {
		if e.Mode == "" || e.Mode == "0" || e.Blob == "" {
			// mode 0 removes the entry (any stage).
			fmt.Fprintf(&in, "0 %s\t%s\x00", r.ZeroID(), e.Path)
			continue
		}
		fmt.Fprintf(&in, "%s %s\t%s\x00", e.Mode, e.Blob, e.Path)
	}
	_, err := r.run(ctx, cmd{args: []string{"update-index", "-z", "--index-info"}, env: ix.env(), stdin: strings.NewReader(in.String())})
	return err
}

// UserIdentityKnown reports whether git knows the user's author and
// committer identity from config or environment without guessing it from
// the host name (user.useConfigOnly). Commits made for the user must check
// it first.
func (r *Repo) UserIdentityKnown(ctx context.Context) (bool, error) {
	for _, v := range []string{"GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"} {
		if _, err := r.git(ctx, "-c", "user.useConfigOnly=true", "var", v); err != nil {
			if ExitCode(err) == 128 {
				return false, nil
			}
			return false, err
		}
	}
	return true, nil
}

// PrivateIndex returns an empty private index in the git dir named
// <name>-<pid>-<n>.index and the function that removes it (and any
// <file>.lock left beside it) when done.
func (r *Repo) PrivateIndex(name string) (Index, func(), error) {
	return r.emptyPrivateIndex(name)
}

// maxPathArgs is how many paths a command line may name; more could pass
// the system's limit on argument size (ARG_MAX), so callers read more
// broadly and filter instead.
const maxPathArgs = 1000

// TreeEntries returns, for each path, its entry in commit's tree; a path the
// tree lacks comes back with an empty Mode and Blob (an index removal).
func (r *Repo) TreeEntries(ctx context.Context, commit string, paths []string) ([]IndexEntry, error) {
	args := []string{"ls-tree", "-z", "--full-tree", commit, "--"}
	if len(paths) <= maxPathArgs {
		args = append(args, paths...)
	} else {
		// Too many to name on a command line: list the whole tree.
		args = []string{"ls-tree", "-r", "-z", "--full-tree", commit}
	}
	out, err := r.run(ctx, cmd{args: args, env: []string{"GIT_LITERAL_PATHSPECS=1"}})
	if err != nil {
		return nil, err
	}
	found := map[string]IndexEntry{}
	for _, rec := range splitZ(out) {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			continue
		}
		found[path] = IndexEntry{Path: path, Mode: f[0], Blob: f[2]}
	}
	entries := make([]IndexEntry, len(paths))
	for i, p := range paths {
		if e, ok := found[p]; ok {
			entries[i] = e
		} else {
			entries[i] = IndexEntry{Path: p}
		}
	}
	return entries, nil
}
