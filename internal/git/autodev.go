package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// This file holds the plumbing git-autodev's checkpoints, parking and
// restore need: HEAD with its tree in one call, multi-ref transactions,
// private copies of the index, untracked listings, reset --hard and a
// search of history by subject.

// HeadTree reads where HEAD points and its tree: the one way HEAD is read
// (Head is HeadTree without the tree; Status reports HEAD as its own git
// call saw it). On a born branch or a detached HEAD it costs one git
// call; an unborn branch costs two more. tree is "" when HEAD has no
// commit.
func (r *Repo) HeadTree(ctx context.Context) (h Head, tree string, err error) {
	out, err := r.git(ctx, "rev-parse", "HEAD^{commit}", "HEAD^{tree}", "--symbolic-full-name", "HEAD", "--")
	if err == nil {
		lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		if len(lines) >= 3 {
			h.Commit, tree = lines[0], lines[1]
			if strings.HasPrefix(lines[2], "refs/") {
				h.Branch = lines[2]
			}
			return h, tree, nil
		}
	}
	// Unborn branch (or something stranger): ask the slow way, which
	// tells the two apart.
	h, err = r.headSlow(ctx)
	if err != nil {
		return h, "", err
	}
	if h.Commit != "" {
		tree, err = r.TreeOf(ctx, h.Commit)
	}
	return h, tree, err
}

// RefUpdate is one compare-and-swap update inside a transaction.
type RefUpdate struct {
	Name string // full ref name, or "HEAD"
	New  string
	Old  string // expected current id; ZeroID() means "must not exist"
	// NoDeref updates the symbolic ref itself (a detached HEAD) instead of
	// the ref it points at.
	NoDeref bool
}

// RefLockError is the one conflict error of SetRef and UpdateRefs: it
// names the ref that was not where the caller expected (or already
// existed). It satisfies errors.Is(err, ErrRefConflict).
type RefLockError struct {
	Ref string
	Err error
}

func (e *RefLockError) Error() string {
	return fmt.Sprintf("%s: %v", e.Ref, e.Err)
}

// Unwrap lets errors.Is find both ErrRefConflict and git's own error.
func (e *RefLockError) Unwrap() []error { return []error{ErrRefConflict, e.Err} }

var lockedRefRe = regexp.MustCompile(`cannot lock ref '([^']+)'`)

// UpdateRefs applies every update in one transaction: all of them happen or
// none does. A failed comparison is a *RefLockError naming the ref.
func (r *Repo) UpdateRefs(ctx context.Context, reason string, ups ...RefUpdate) error {
	var in bytes.Buffer
	for _, u := range ups {
		if u.NoDeref {
			in.WriteString("option no-deref\n")
		}
		fmt.Fprintf(&in, "update %s %s %s\n", u.Name, u.New, u.Old)
	}
	args := []string{"update-ref"}
	if reason != "" {
		args = append(args, "-m", reason)
	}
	args = append(args, "--stdin")
	_, err := r.run(ctx, cmd{args: args, stdin: &in})
	if err != nil {
		var ge *Error
		if errors.As(err, &ge) && isRefLockFailure(ge.Stderr) {
			ref := ""
			if m := lockedRefRe.FindStringSubmatch(ge.Stderr); m != nil {
				ref = m[1]
			}
			return &RefLockError{Ref: ref, Err: err}
		}
	}
	return err
}

// IndexPath is the file of the user's index for this worktree.
func (r *Repo) IndexPath() string { return filepath.Join(r.GitDir, "index") }

// CopyIndex makes a private index under the git dir that starts as a copy
// of the user's index, with the same modification time so git's stat cache
// stays valid and unchanged files are not read again. Without a user index
// the private one starts empty. Remove the file when done (or hand it to
// InstallIndex).
func (r *Repo) CopyIndex(name string) (Index, error) {
	// The pid in the name says whose it is if a kill leaves it behind
	// (see LeftoverIndexes).
	f, ix, _, err := r.newPrivateIndex(name)
	if err != nil {
		return Index{}, err
	}
	src, err := os.Open(r.IndexPath())
	if errors.Is(err, os.ErrNotExist) {
		f.Close()
		// An absent file is how git spells an empty index.
		return ix, os.Remove(ix.Path)
	}
	if err != nil {
		f.Close()
		os.Remove(ix.Path)
		return Index{}, err
	}
	defer src.Close()
	st, err := src.Stat()
	if err == nil {
		_, err = io.Copy(f, src)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// CreateTemp made the file 0600; the copy may become the user's
		// index (InstallIndex), so it gets the original's mode.
		err = os.Chmod(ix.Path, st.Mode().Perm())
	}
	if err == nil {
		err = os.Chtimes(ix.Path, st.ModTime(), st.ModTime())
	}
	if err != nil {
		os.Remove(ix.Path)
		return Index{}, err
	}
	return ix, nil
}

// ErrIndexLocked reports that another git process holds index.lock.
var ErrIndexLocked = errors.New("index.lock is held by another git process")

// InstallIndex makes the private index ix the user's index, the way git
// commits an index: take index.lock (waiting briefly for another git
// process to let go), then rename the lock over the index. The lock is
// taken as a hard link to ix's file, created only if absent, so that a
// lock left by a kill is recognisably ours: the same file as a private
// index named with this process's pid (see LeftoverIndexes). Where hard
// links are not available, an empty lock file is created instead and the
// new index renamed over it. ix's file is gone afterwards on success.
func (r *Repo) InstallIndex(ix Index) error {
	if ix.Path == "" {
		return errors.New("InstallIndex needs a private index")
	}
	lock := r.IndexPath() + ".lock"
	deadline := time.Now().Add(time.Second)
	linked := true
	for {
		err := os.Link(ix.Path, lock)
		if err != nil && !errors.Is(err, os.ErrExist) {
			// No hard links here: take the lock as an empty file.
			linked = false
			var f *os.File
			if f, err = os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); err == nil {
				f.Close()
			}
		}
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) {
			return err
		}
		if time.Now().After(deadline) {
			return ErrIndexLocked
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !linked {
		if err := os.Rename(ix.Path, lock); err != nil {
			os.Remove(lock)
			return err
		}
	}
	if err := os.Rename(lock, r.IndexPath()); err != nil {
		os.Remove(lock)
		return err
	}
	if linked {
		os.Remove(ix.Path)
	}
	return nil
}

// UntrackedFiles lists the files git shows as untracked (not in the
// user's index, not ignored by any of git's ignore sources), relative to
// the top level, leaving out the given top-level paths. An embedded
// repository appears once, as its folder with a trailing "/".
func (r *Repo) UntrackedFiles(ctx context.Context, exclude ...string) ([]string, error) {
	args := []string{"ls-files", "-z", "--others", "--exclude-standard", "--full-name", "--", "."}
	for _, e := range exclude {
		args = append(args, ":(exclude,top,literal)"+e)
	}
	out, err := r.git(ctx, args...)
	if err != nil {
		return nil, err
	}
	return splitZ(out), nil
}

// TreePaths returns every path (files, symlinks, submodules) in commit's
// tree, relative to the top level.
func (r *Repo) TreePaths(ctx context.Context, commit string) (map[string]bool, error) {
	out, err := r.git(ctx, "ls-tree", "-r", "-z", "--full-tree", "--name-only", commit)
	if err != nil {
		return nil, err
	}
	paths := splitZ(out)
	set := make(map[string]bool, len(paths))
	for _, p := range paths {
		set[p] = true
	}
	return set, nil
}

// ResetHard points HEAD (the current branch, or a detached HEAD) at commit
// and makes the user's index and the tracked files of the work tree match
// it, as git reset --hard does. Untracked files are left alone. commit must
// be a full object id: it is never read as a revision expression.
//
// git works on a private copy of the index (named with this process's pid,
// see LeftoverIndexes), which InstallIndex then makes the user's: a reset
// killed half-way leaves only files that are recognisably ours, never the
// user's index.lock, which a later command could not tell from a running
// git's. A user's index.lock present before the reset is an
// *IndexLockedError, and nothing is changed.
func (r *Repo) ResetHard(ctx context.Context, commit, reason string) error {
	if !r.validID(commit) {
		return fmt.Errorf("ResetHard needs a full commit id, not %q", commit)
	}
	if r.IndexLocked() {
		return &IndexLockedError{Path: r.IndexPath() + ".lock"}
	}
	ix, err := r.CopyIndex("autodev")
	if err != nil {
		return fmt.Errorf("copying the index: %w", err)
	}
	env := ix.env()
	if reason != "" {
		env = append(env, "GIT_REFLOG_ACTION="+reason)
	}
	if _, err := r.run(ctx, cmd{args: []string{"reset", "-q", "--hard", commit + "^{commit}", "--"}, env: env}); err != nil {
		os.Remove(ix.Path)
		os.Remove(ix.Path + ".lock")
		return err
	}
	if _, err := os.Stat(ix.Path); errors.Is(err, os.ErrNotExist) {
		// An empty result, which git spells as no file: so is the index.
		if err := os.Remove(r.IndexPath()); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := r.InstallIndex(ix); err != nil {
		os.Remove(ix.Path)
		return fmt.Errorf("HEAD and the files are at %s, but the index could not be replaced (%w); run git reset -q to make it match HEAD", commit, err)
	}
	return nil
}

// CommitInfo is one commit found by FindCommits.
type CommitInfo struct {
	ID      string
	Parents []string  // parent ids, first parent first
	Time    time.Time // committer date
	Message string    // full message, subject first
}

// Subject is the first line of the message.
func (c CommitInfo) Subject() string {
	s, _, _ := strings.Cut(c.Message, "\n")
	return s
}

// CommitQuery selects commits for FindCommits.
type CommitQuery struct {
	Revs     []string // starting points ("HEAD", commit ids)
	Globs    []string // ref globs ("refs/autodev/checkpoints/*")
	Branches []string // branch globs ("autodev/pre-restore-*")
	Grep     string   // regular expression the message must match ("" for all)
	Limit    int      // 0 for no limit
	NoWalk   bool     // only the starting points themselves, not their history
}

// FindCommits lists the commits reachable from the query's starting
// points, parents before children (with NoWalk: the starting points, in
// the order given). No starting point means no commits.
func (r *Repo) FindCommits(ctx context.Context, q CommitQuery) ([]CommitInfo, error) {
	args := []string{"log", "-z", "--format=%H%n%P%n%cI%n%B"}
	if !q.NoWalk {
		args = append(args, "--reverse", "--topo-order")
	}
	if q.Grep != "" {
		args = append(args, "--extended-regexp", "--grep="+q.Grep)
	}
	if q.NoWalk {
		args = append(args, "--no-walk")
	}
	if q.Limit > 0 {
		args = append(args, fmt.Sprintf("--max-count=%d", q.Limit))
	}
	for _, g := range q.Globs {
		args = append(args, "--glob="+g)
	}
	for _, b := range q.Branches {
		args = append(args, "--branches="+b)
	}
	if len(q.Revs)+len(q.Globs)+len(q.Branches) == 0 {
		return nil, nil
	}
	args = append(args, q.Revs...)
	args = append(args, "--")
	out, err := r.git(ctx, args...)
	if err != nil {
		return nil, err
	}
	var list []CommitInfo
	for _, rec := range splitZ(out) {
		id, rest, _ := strings.Cut(rec, "\n")
		parents, rest, _ := strings.Cut(rest, "\n")
		date, msg, _ := strings.Cut(rest, "\n")
		t, _ := time.Parse(time.RFC3339, date)
		list = append(list, CommitInfo{ID: id, Parents: strings.Fields(parents), Time: t, Message: strings.TrimRight(msg, "\n")})
	}
	return list, nil
}

// ValidID reports whether id is a full object id in this repository's
// format (40 or 64 lowercase hex digits): a value safe to hand to git as
// an object, never read as a revision expression or an option.
func (r *Repo) ValidID(id string) bool { return r.validID(id) }

// ResetIndexTo makes the user's index hold treeish's tree, as git reset
// <treeish> -- :/ does: only the entries that differ are replaced, so the
// others keep their stat data. HEAD and the work tree do not change.
func (r *Repo) ResetIndexTo(ctx context.Context, treeish string) error {
	_, err := r.git(ctx, "reset", "-q", treeish, "--", ":/")
	return err
}
