package git

import (
	"context"
	"strconv"
	"strings"
)

// LineStat is one file's lines added and deleted between two trees;
// Binary files count none.
type LineStat struct {
	Path    string
	Added   int
	Deleted int
	Binary  bool
}

// NumStat returns the lines added and deleted per file from a to b
// (commits or trees; git diff-tree --numstat, no rename detection).
func (r *Repo) NumStat(ctx context.Context, a, b string) ([]LineStat, error) {
	out, err := r.git(ctx, "diff-tree", "-r", "--numstat", "-z", "--no-renames", "--no-textconv", a, b)
	if err != nil {
		return nil, err
	}
	var stats []LineStat
	for _, rec := range strings.Split(string(out), "\x00") {
		fields := strings.SplitN(rec, "\t", 3)
		if len(fields) != 3 {
			continue
		}
		s := LineStat{Path: fields[2]}
		if fields[0] == "-" {
			s.Binary = true
		} else {
			s.Added, _ = strconv.Atoi(fields[0])
			s.Deleted, _ = strconv.Atoi(fields[1])
		}
		stats = append(stats, s)
	}
	return stats, nil
}
