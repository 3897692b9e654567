package git

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// IgnoredInTheWay lists the ignored files and folders of the work tree
// that `git reset --hard <commit>` would overwrite or delete because commit
// tracks their path, a path inside them, or a file where a folder of
// theirs is. reset --hard treats ignored files as expendable; the caller
// must not let it lose them. One ls-files; one ls-tree only when there are
// ignored entries at all.
func (r *Repo) IgnoredInTheWay(ctx context.Context, commit string, exclude ...string) ([]string, error) {
	args := []string{"ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory", "--", "."}
	for _, e := range exclude {
		args = append(args, ":(exclude,top,literal)"+e)
	}
	out, err := r.git(ctx, args...)
	if err != nil {
		return nil, err
	}
	ignored := splitZ(out)
	if len(ignored) == 0 {
		return nil, nil
	}
	// Ask the target tree about each ignored path and its leading folders.
	seen := map[string]bool{}
	lsArgs := []string{"ls-tree", "-r", "-z", "--name-only", "--full-tree", commit, "--"}
	wholeTree := len(lsArgs)
	for _, p := range ignored {
		p = strings.TrimSuffix(p, "/")
		for q := p; q != "" && !seen[q]; {
			seen[q] = true
			lsArgs = append(lsArgs, q)
			i := strings.LastIndexByte(q, '/')
			if i < 0 {
				break
			}
			q = q[:i]
		}
	}
	if len(lsArgs) > maxPathArgs {
		lsArgs = lsArgs[:wholeTree] // no paths: the whole tree, filtered below
	}
	out, err = r.run(ctx, cmd{args: lsArgs, env: []string{"GIT_LITERAL_PATHSPECS=1"}})
	if err != nil {
		return nil, err
	}
	tracked := splitZ(out)
	var clash []string
	for _, raw := range ignored {
		p := strings.TrimSuffix(raw, "/")
		for _, t := range tracked {
			if t == p || strings.HasPrefix(t, p+"/") || strings.HasPrefix(p, t+"/") {
				clash = append(clash, raw)
				break
			}
		}
	}
	return clash, nil
}

// HiddenLocalEdits lists tracked files marked assume-unchanged or
// skip-worktree whose work-tree content differs from the index : git add (and so a checkpoint or a park) does not see those
// edits, and reset --hard would overwrite them. One ls-files, plus one
// hash-object only when such files exist.
func (r *Repo) HiddenLocalEdits(ctx context.Context) ([]string, error) {
	out, err := r.git(ctx, "ls-files", "-z", "-s", "-v")
	if err != nil {
		return nil, err
	}
	var paths, blobs []string
	for _, rec := range splitZ(out) {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 {
			continue
		}
		tag := f[0]
		hidden := tag == "S" || (len(tag) == 1 && tag[0] >= 'a' && tag[0] <= 'z')
		if !hidden || f[1] == ModeGitlink { // a submodule is its own repository
			continue
		}
		paths = append(paths, path)
		blobs = append(blobs, f[2])
	}
	if len(paths) == 0 {
		return nil, nil
	}
	// A missing file is no content at risk (sparse checkouts leave
	// skip-worktree files out on purpose): only files present are hashed.
	var present []string
	var presentIdx []int
	var edited []string
	for i, p := range paths {
		if st, err := os.Lstat(filepath.Join(r.WorkTree, p)); err != nil || !st.Mode().IsRegular() {
			continue
		}
		present = append(present, p)
		presentIdx = append(presentIdx, i)
	}
	ids, err := r.HashFiles(ctx, present)
	if err != nil {
		return nil, err
	}
	for j, i := range presentIdx {
		if ids[j] != blobs[i] {
			edited = append(edited, paths[i])
		}
	}
	return edited, nil
}
