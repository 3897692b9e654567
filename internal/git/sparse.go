package git

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// literalSpecs turns paths into top-level literal pathspecs.
func literalSpecs(paths []string) []string {
	specs := make([]string, len(paths))
	for i, p := range paths {
		specs[i] = ":(top,literal)" + p
	}
	return specs
}

// pathChunk bounds how many pathspecs go on one command line.
const pathChunk = 1000

// indexEntriesOf runs ls-files with flags on paths (literal pathspecs,
// chunked) and returns its NUL-separated records.
func (r *Repo) indexEntriesOf(ctx context.Context, flags []string, paths []string) ([]string, error) {
	var recs []string
	for len(paths) > 0 {
		n := min(len(paths), pathChunk)
		args := append(append([]string{"ls-files", "-z"}, flags...), "--")
		out, err := r.git(ctx, append(args, literalSpecs(paths[:n])...)...)
		if err != nil {
			return nil, err
		}
		recs = append(recs, splitZ(out)...)
		paths = paths[n:]
	}
	return recs, nil
}

// SubmodulePaths returns the submodules of the work tree: the paths that
// .gitmodules names and the index holds as gitlinks (mode 160000). It
// costs nothing without a .gitmodules file.
func (r *Repo) SubmodulePaths(ctx context.Context) ([]string, error) {
	gm := filepath.Join(r.WorkTree, ".gitmodules")
	if st, err := os.Lstat(gm); err != nil || !st.Mode().IsRegular() {
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	out, err := r.git(ctx, "config", "-z", "--file", gm, "--get-regexp", `^submodule\..*\.path$`)
	if err != nil {
		if ExitCode(err) == 1 {
			return nil, nil
		}
		// A .gitmodules git cannot read names no submodule.
		return nil, nil
	}
	var named []string
	for _, rec := range splitZ(out) {
		if _, v, ok := strings.Cut(rec, "\n"); ok && v != "" {
			named = append(named, strings.TrimSuffix(v, "/"))
		}
	}
	if len(named) == 0 {
		return nil, nil
	}
	recs, err := r.indexEntriesOf(ctx, []string{"--stage"}, named)
	if err != nil {
		return nil, err
	}
	var subs []string
	for _, rec := range recs {
		// <mode> <object> <stage>\t<path>
		meta, path, ok := strings.Cut(rec, "\t")
		if ok && strings.HasPrefix(meta, "160000 ") {
			subs = append(subs, path)
		}
	}
	return subs, nil
}

// OutsideSparseCheckout returns which of paths the index marks
// skip-worktree in a sparse checkout (core.sparseCheckout): they are
// outside its cone, and git neither writes nor looks at them in the work
// tree. Without a sparse checkout it returns nil at the cost of one config
// read.
func (r *Repo) OutsideSparseCheckout(ctx context.Context, paths []string) (map[string]bool, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	sparse, err := r.ConfigBool(ctx, "core.sparseCheckout", false)
	if err != nil || !sparse {
		return nil, err
	}
	recs, err := r.indexEntriesOf(ctx, []string{"-t"}, paths)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, rec := range recs {
		// <tag> <path>; S is skip-worktree.
		if p, ok := strings.CutPrefix(rec, "S "); ok {
			out[p] = true
		}
	}
	return out, nil
}
