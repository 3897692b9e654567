package git

// This file holds the index: reading and writing its entries, the
// user's index (its path, lock and installing a new one), and the
// raw bytes of an index file.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nudgethis/git-nudge/internal/gitexec"
	"github.com/nudgethis/git-nudge/internal/gitstore"
)

// ResetIndexTo makes the user's index hold treeish's tree, as git reset
// <treeish> -- :/ does: only the entries that differ are replaced, so the
// others keep their stat data. HEAD and the work tree do not change.
func (r *Repo) ResetIndexTo(ctx context.Context, treeish string) error {
	_, err := r.git(ctx, "reset", "-q", treeish, "--", ":/")
	return err
}

// IndexEntries returns, for each path, its stage-0 entry in the user's
// index; a path the index lacks (or holds only in conflict) comes back
// with an empty Mode and Blob. It only reads the index.
func (r *Repo) IndexEntries(ctx context.Context, paths []string) ([]IndexEntry, error) {
	args := []string{"ls-files", "-s", "-z", "--full-name", "--"}
	if len(paths) <= gitexec.MaxPathArgs {
		args = append(args, paths...)
	}
	out, err := r.run(ctx, cmd{Args: args, Env: []string{"GIT_LITERAL_PATHSPECS=1"}})
	if err != nil {
		return nil, err
	}
	found := map[string]IndexEntry{}
	for _, rec := range gitexec.SplitZ(out) {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[2] != "0" {
			continue
		}
		found[path] = IndexEntry{Path: path, Mode: f[0], Blob: f[1]}
	}
	return gitstore.InPathOrder(paths, found), nil
}

// indexEnv is the environment that points a git child at ix (nothing for
// the user's index).
func indexEnv(ix Index) []string {
	if ix.Path == "" {
		return nil
	}
	return []string{"GIT_INDEX_FILE=" + ix.Path}
}

// ReadTree replaces the index's entries with tree's.
func (r *Repo) ReadTree(ctx context.Context, ix Index, tree string) error {
	_, err := r.run(ctx, cmd{Args: []string{"read-tree", tree}, Env: indexEnv(ix)})
	return err
}

// WriteTree writes the index as a tree and returns its id.
func (r *Repo) WriteTree(ctx context.Context, ix Index) (string, error) {
	out, err := r.run(ctx, cmd{Args: []string{"write-tree"}, Env: indexEnv(ix)})
	return strings.TrimSpace(string(out)), err
}

// AddAll stages every change in the work tree into ix (git add -A), leaving
// out ignored files and the given pathspec exclusions (":(exclude)...").
func (r *Repo) AddAll(ctx context.Context, ix Index, exclude ...string) error {
	args := []string{"add", "-A", "--", "."}
	for _, e := range exclude {
		args = append(args, excludeGlobs(e)...)
	}
	// The excludes are glob pathspecs: an inherited pathspec mode must not
	// turn them literal (or the "." into a pattern).
	env := append(indexEnv(ix), "GIT_LITERAL_PATHSPECS=0", "GIT_GLOB_PATHSPECS=0", "GIT_NOGLOB_PATHSPECS=0")
	_, err := r.run(ctx, cmd{Args: args, Env: env})
	return err
}

// UntrackedIn lists the files that are untracked for the private index
// ix (not in it, not ignored), as UntrackedFiles does for the user's.
func (r *Repo) UntrackedIn(ctx context.Context, ix Index, exclude ...string) ([]string, error) {
	args := []string{"ls-files", "-z", "--others", "--exclude-standard", "--full-name", "--", "."}
	for _, e := range exclude {
		args = append(args, ":(exclude,top,literal)"+e)
	}
	out, err := r.run(ctx, cmd{Args: args, Env: indexEnv(ix)})
	if err != nil {
		return nil, err
	}
	return gitexec.SplitZ(out), nil
}

// AddSplit is AddAll for a caller that has listed the untracked files
// itself (UntrackedIn) and takes only some of them: git add -u for the
// tracked files, then the untracked files add names (an embedded
// repository as its folder, "dir/") through update-index, so the work
// tree is walked once in all, by the listing. A file gone since it was
// listed is skipped (--remove drops nothing: it was not in the index).
func (r *Repo) AddSplit(ctx context.Context, ix Index, add []string, exclude ...string) error {
	args := []string{"add", "-u", "--", "."}
	for _, e := range exclude {
		args = append(args, excludeGlobs(e)...)
	}
	env := append(indexEnv(ix), "GIT_LITERAL_PATHSPECS=0", "GIT_GLOB_PATHSPECS=0", "GIT_NOGLOB_PATHSPECS=0")
	if _, err := r.run(ctx, cmd{Args: args, Env: env}); err != nil {
		return err
	}
	if len(add) == 0 {
		return nil
	}
	var in strings.Builder
	for _, p := range add {
		in.WriteString(strings.TrimSuffix(p, "/"))
		in.WriteByte(0)
	}
	_, err := r.run(ctx, cmd{Args: []string{"update-index", "--add", "--remove", "-z", "--stdin"}, Env: indexEnv(ix), Stdin: strings.NewReader(in.String())})
	return err
}

// excludeGlobs are the pathspecs that keep the top-level path p and
// everything under it out of git add. They are written so that no
// pathspec is the plain text p: git add compares its pathspecs, excludes
// included, with the ignored paths it meets, and fails ("The following
// paths are ignored") when p is ignored by the user's own rules, as an
// .autodev/ line in .gitignore makes it. A glob whose first character is
// escaped matches the same paths without that plain prefix.
func excludeGlobs(p string) []string {
	var b strings.Builder
	for i, c := range p {
		switch {
		case i == 0 && !strings.ContainsRune(`*?[]\`, c):
			b.WriteString("[" + string(c) + "]")
		case strings.ContainsRune(`*?[]\`, c):
			b.WriteString(`\` + string(c))
		default:
			b.WriteRune(c)
		}
	}
	g := b.String()
	return []string{":(exclude,top,glob)" + g, ":(exclude,top,glob)" + g + "/**"}
}

// IndexBytesTree writes the tree of an index given as bytes so that every
// object its entries name stays reachable from that tree: in this process
// when it can (IndexTreeHere), else by git write-tree on a private index
// file in the git dir.
func (r *Repo) IndexBytesTree(ctx context.Context, data []byte) (string, error) {
	if t, ok := r.IndexTreeHere(data); ok {
		return t, nil
	}
	f, err := os.CreateTemp(r.GitDir, "nudgethis-op-index-")
	if err != nil {
		return "", err
	}
	name := f.Name()
	defer os.Remove(name)
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	return r.WriteTree(ctx, Index{Path: name})
}

// IndexFromTree makes the user's index hold tree's entries, keeping the
// stat data of the entries that do not change (git read-tree --reset of one
// tree, on a copy installed under index.lock).
func (r *Repo) IndexFromTree(ctx context.Context, tree string) error {
	if !r.ValidID(tree) {
		return fmt.Errorf("not a tree id: %q", tree)
	}
	ix, err := r.CopyIndex("oplog")
	if err != nil {
		return err
	}
	args := append(append([]string{}, privateIndexArgs...), "read-tree", "--reset", tree)
	if _, err := r.run(ctx, cmd{Args: args, Env: indexEnv(ix)}); err != nil {
		os.Remove(ix.Path)
		return err
	}
	return r.InstallIndex(ix)
}

// statArgs make git compare every index entry with the file by all of its
// stat data, ctime and inode included, whatever the repository's config
// says: a task can set a file's mtime back, never its ctime.
var statArgs = []string{"-c", "core.checkStat=default", "-c", "core.trustctime=true",
	"-c", "core.splitIndex=false", "-c", "core.untrackedCache=false", "-c", "core.sparseCheckout=false"}

// RefreshIndex refreshes the stat data of r's index (a worktree's own),
// so that the next status does not find every entry racily clean and
// read every file again.
func (r *Repo) RefreshIndex(ctx context.Context) error {
	_, err := r.git(ctx, append(append([]string{}, statArgs...), "update-index", "-q", "--refresh")...)
	if err != nil && ExitCode(err) == 1 { // 1: some entry differs; the index is written all the same
		return nil
	}
	return err
}

// RewriteIndexRefreshed refreshes the stat data of r's index (a
// worktree's own) and writes it out even when no entry changed: entries
// written in the index's own second, which git would otherwise read
// again on every check, are hashed now and recorded as clean by an
// index newer than them (the caller waited for the clock to pass that
// second).
func (r *Repo) RewriteIndexRefreshed(ctx context.Context) error {
	_, err := r.git(ctx, append(append([]string{}, statArgs...), "update-index", "-q", "--refresh", "--force-write-index")...)
	if err != nil && ExitCode(err) == 1 { // 1: some entry differs; the index is written all the same
		return nil
	}
	return err
}

// IndexKinds returns, for the index file at index, each entry's path
// and mode; plain is false when the index holds anything a fresh
// worktree's index does not (a conflict, a skip-worktree or
// assume-unchanged entry).
func (r *Repo) IndexKinds(ctx context.Context, index string) (modes map[string]string, plain bool, err error) {
	data, err := os.ReadFile(index)
	if err != nil {
		return nil, false, err
	}
	if len(data) >= 8 && string(data[:4]) == "DIRC" && binary.BigEndian.Uint32(data[4:8]) <= 3 {
		if modes, plain, err := r.IndexKindsOf(data, true); err != nil || plain {
			return modes, plain, err
		}
	}
	out, err := r.run(ctx, cmd{Args: []string{"ls-files", "-z", "-s", "-v", "--full-name"}, Env: []string{"GIT_INDEX_FILE=" + index}})
	if err != nil {
		return nil, false, err
	}
	modes = map[string]string{}
	plain = true
	for _, rec := range gitexec.SplitZ(out) {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 {
			return nil, false, nil
		}
		if f[0] != "H" || f[3] != "0" {
			plain = false
		}
		modes[path] = f[1]
	}
	return modes, plain, nil
}

// IndexPlain is IndexKinds's plain alone, without listing the entries
// when the index is read in this process.
func (r *Repo) IndexPlain(ctx context.Context, index string) (bool, error) {
	data, err := os.ReadFile(index)
	if err != nil {
		return false, err
	}
	if len(data) >= 8 && string(data[:4]) == "DIRC" && binary.BigEndian.Uint32(data[4:8]) <= 3 {
		if _, plain, err := r.IndexKindsOf(data, false); err != nil || plain {
			return plain, err
		}
	}
	_, plain, err := r.IndexKinds(ctx, index)
	return plain, err
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
	for _, rec := range gitexec.SplitZ(out) {
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
	_, err := r.run(ctx, cmd{Args: []string{"update-index", "-z", "--index-info"}, Env: indexEnv(ix), Stdin: strings.NewReader(in.String())})
	return err
}

// indexEntriesOf runs ls-files with flags on paths (literal pathspecs,
// chunked) and returns its NUL-separated records.
func (r *Repo) indexEntriesOf(ctx context.Context, flags []string, paths []string) ([]string, error) {
	var recs []string
	for len(paths) > 0 {
		n := min(len(paths), gitexec.MaxPathArgs)
		args := append(append([]string{"ls-files", "-z"}, flags...), "--")
		out, err := r.git(ctx, append(args, gitexec.LiteralSpecs(paths[:n])...)...)
		if err != nil {
			return nil, err
		}
		recs = append(recs, gitexec.SplitZ(out)...)
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
	for _, rec := range gitexec.SplitZ(out) {
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
// read (none when no config file mentions the setting: ConfigMayMention).
func (r *Repo) OutsideSparseCheckout(ctx context.Context, paths []string) (map[string]bool, error) {
	if len(paths) == 0 || !r.ConfigMayMention("sparsecheckout") {
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
