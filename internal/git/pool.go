package git

import (
	"context"
	"strings"
)

// The git side of pooled task worktrees (internal/nudge/pool.go): a
// worktree's own index refreshed, a worktree brought to a commit from a
// trusted index, and the checks that prove it holds nothing else.

// WorktreeRepo is the repository as seen from the linked worktree at dir
// whose administrative folder is admin (.git/worktrees/<name>), both given
// by the caller rather than read from the worktree's .git file (which a
// task may have rewritten).
func (r *Repo) WorktreeRepo(dir, admin string) *Repo {
	return &Repo{GitDir: admin, CommonDir: r.CommonDir, WorkTree: dir, ObjectFormat: r.ObjectFormat}
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

// ResetWorktreeTo makes r's index (a worktree's own) the tree of commit
// and its work tree match it: every entry whose file differs from the
// index's stat data is written afresh, entries commit lacks are removed
// (git read-tree --reset -u). Untracked files are left alone: the caller
// removed them first.
func (r *Repo) ResetWorktreeTo(ctx context.Context, commit string) error {
	_, err := r.git(ctx, append(append([]string{}, statArgs...), "read-tree", "--reset", "-u", commit)...)
	return err
}

// IndexKinds returns, for the index file at index, each entry's path
// and mode; plain is false when the index holds anything a fresh
// worktree's index does not (a conflict, a skip-worktree or
// assume-unchanged entry).
func (r *Repo) IndexKinds(ctx context.Context, index string) (modes map[string]string, plain bool, err error) {
	out, err := r.run(ctx, cmd{args: []string{"ls-files", "-z", "-s", "-v", "--full-name"}, env: []string{"GIT_INDEX_FILE=" + index}})
	if err != nil {
		return nil, false, err
	}
	modes = map[string]string{}
	plain = true
	for _, rec := range splitZ(out) {
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

// WorktreeClean reports whether r's work tree (a linked worktree) holds
// exactly what its index and HEAD say: no change, no untracked file, no
// ignored file.
func (r *Repo) WorktreeClean(ctx context.Context) (bool, error) {
	out, err := r.git(ctx, append(append([]string{}, statArgs...),
		"status", "--porcelain=v1", "-z", "--ignored=matching", "--untracked-files=all", "--ignore-submodules=none")...)
	if err != nil {
		return false, err
	}
	return len(out) == 0, nil
}
