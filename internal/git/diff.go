package git

// This file holds differences between trees: as records, as paths,
// or printed as a patch, a diffstat or status letters.

import (
	"context"
	"fmt"
	"io"
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
// changes included; with pathspecs, only the paths they match.
func (r *Repo) DiffTrees(ctx context.Context, a, b string, pathspecs ...string) ([]TreeChange, error) {
	args := append([]string{"diff-tree", "-r", "--no-renames", "--no-abbrev", "-z", "--raw", "--no-ext-diff", "--no-textconv", a, b, "--"}, pathspecs...)
	out, err := r.git(ctx, args...)
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

// ChangedPaths lists the paths that differ between two commits ("" is
// an empty tree), recursively, renames off.
func (r *Repo) ChangedPaths(ctx context.Context, a, b string) ([]string, error) {
	if a == "" {
		a = r.EmptyTree()
	}
	if b == "" {
		b = r.EmptyTree()
	}
	if a == b {
		return nil, nil
	}
	out, err := r.git(ctx, "diff-tree", "-r", "-z", "--name-only", "--no-renames", a, b, "--")
	if err != nil {
		return nil, err
	}
	var ps []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			ps = append(ps, p)
		}
	}
	return ps, nil
}

// DiffFormat is what DiffTreesTo prints.
type DiffFormat int

const (
	DiffPatch DiffFormat = iota
	DiffStat
	DiffNameStatus
	// DiffBinaryPatch is a patch with binary changes in full (--binary), for
	// git apply.
	DiffBinaryPatch
)

// DiffTreesTo writes the difference between the trees of a and b (no
// rename detection, no external diff or textconv) to w in the given
// format, for the paths pathspecs match (all when none; git runs at the
// top of the work tree) and leaving out the paths in exclude.
func (r *Repo) DiffTreesTo(ctx context.Context, w io.Writer, a, b string, format DiffFormat, color bool, pathspecs, exclude []string) error {
	// core.quotePath on, whatever the user set: with it off git prints
	// C1 and bidirectional controls in names raw, and a task chose them.
	args := []string{"-c", "core.quotePath=true", "diff-tree", "-r", "--no-renames", "--no-ext-diff", "--no-textconv"}
	switch format {
	case DiffStat:
		args = append(args, "--stat")
	case DiffNameStatus:
		args = append(args, "--name-status")
	case DiffBinaryPatch:
		args = append(args, "-p", "--binary")
	default:
		args = append(args, "-p")
	}
	if color {
		args = append(args, "--color=always")
	} else {
		args = append(args, "--color=never")
	}
	args = append(args, a, b, "--")
	if len(pathspecs) == 0 {
		pathspecs = []string{"."}
	}
	args = append(args, pathspecs...)
	for _, e := range exclude {
		args = append(args, ":(exclude,top,literal)"+e)
	}
	_, err := r.run(ctx, cmd{Args: args, Stdout: w})
	return err
}
