package git

import (
	"context"
	"strings"
)

// IndexEntries returns, for each path, its stage-0 entry in the user's
// index; a path the index lacks (or holds only in conflict) comes back
// with an empty Mode and Blob. It only reads the index.
func (r *Repo) IndexEntries(ctx context.Context, paths []string) ([]IndexEntry, error) {
	args := []string{"ls-files", "-s", "-z", "--full-name", "--"}
	if len(paths) <= maxPathArgs {
		args = append(args, paths...)
	}
	out, err := r.run(ctx, cmd{args: args, env: []string{"GIT_LITERAL_PATHSPECS=1"}})
	if err != nil {
		return nil, err
	}
	found := map[string]IndexEntry{}
	for _, rec := range splitZ(out) {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[2] != "0" {
			continue
		}
		found[path] = IndexEntry{Path: path, Mode: f[0], Blob: f[1]}
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
