package git

import (
	"context"
	"fmt"
	"strings"
)

// TreeChange is one path that differs between two trees, as diff-tree's raw
// format reports it. Absent sides carry git's zero mode "000000" and the
// all-zero object id.
type TreeChange struct {
	Path    string
	Status  string // "A", "M", "D" or "T"
	OldMode string
	NewMode string
	OldBlob string
	NewBlob string
}

// DiffTrees lists every path that differs between the trees of a and b
// (commits or trees), recursively, without rename detection, mode-only
// changes included.
func (r *Repo) DiffTrees(ctx context.Context, a, b string) ([]TreeChange, error) {
	out, err := r.git(ctx, "diff-tree", "-r", "--no-renames", "--no-abbrev", "-z", "--raw", "--no-ext-diff", "--no-textconv", a, b, "--")
	if err != nil {
		return nil, err
	}
	return parseRawDiff(out)
}

// parseRawDiff reads "-z --raw" records:
// ":<old mode> <new mode> <old id> <new id> <status>\0<path>\0".
func parseRawDiff(out []byte) ([]TreeChange, error) {
	var changes []TreeChange
	rest := string(out)
	for rest != "" {
		head, after, ok := strings.Cut(rest, "\x00")
		if !ok {
			return nil, fmt.Errorf("diff-tree: truncated record %q", head)
		}
		path, after2, ok := strings.Cut(after, "\x00")
		if !ok {
			return nil, fmt.Errorf("diff-tree: record without a path: %q", head)
		}
		rest = after2
		f := strings.Fields(strings.TrimPrefix(head, ":"))
		if len(f) != 5 || !strings.HasPrefix(head, ":") {
			return nil, fmt.Errorf("diff-tree: unexpected record %q", head)
		}
		changes = append(changes, TreeChange{
			Path: path, OldMode: f[0], NewMode: f[1], OldBlob: f[2], NewBlob: f[3],
			Status: f[4][:1],
		})
	}
	return changes, nil
}
