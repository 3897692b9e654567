package git

// This file holds the work tree against the index and HEAD: status,
// untracked and ignored files, and whether anything differs.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nudgethis/git-nudge/internal/gitexec"
)

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
	return gitexec.SplitZ(out), nil
}

// Dirty reports whether the work tree has anything a checkpoint would
// record: tracked changes (staged or not), untracked files that are not
// ignored, a submodule checked out at another commit (not changes inside
// one, which a checkpoint never takes), outside the excluded top-level
// paths. It reads only (no index refresh is written).
func (r *Repo) Dirty(ctx context.Context, exclude ...string) (bool, error) {
	args := []string{"status", "--porcelain", "-z", "--untracked-files=normal", "--ignored=no",
		"--no-renames", "--ignore-submodules=dirty", "--", "."}
	for _, e := range exclude {
		args = append(args, ":(exclude,top,literal)"+e)
	}
	out, err := r.git(ctx, args...)
	if err != nil {
		return false, err
	}
	return len(out) > 0, nil
}

// IgnoredAt lists the ignored files (and symlinks) at or under the given
// paths of the work tree: git walks only the folders the paths lead to,
// not the whole tree. paths are literal and at most gitexec.MaxPathArgs of them
// are taken (IgnoredAtLimit); the caller checks more another way.
func (r *Repo) IgnoredAt(ctx context.Context, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	if len(paths) > gitexec.MaxPathArgs {
		paths = paths[:gitexec.MaxPathArgs]
	}
	args := append([]string{"ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--full-name", "--"}, paths...)
	out, err := r.run(ctx, cmd{Args: args, Env: []string{"GIT_LITERAL_PATHSPECS=1"}})
	if err != nil {
		return nil, err
	}
	return gitexec.SplitZ(out), nil
}

// IgnoredAtLimit is how many paths IgnoredAt takes.
const IgnoredAtLimit = gitexec.MaxPathArgs

// DirtyPaths lists every path that differs between HEAD, the index and
// the work tree, untracked files one by one, ignored files left out.
func (r *Repo) DirtyPaths(ctx context.Context) ([]string, error) {
	out, err := r.git(ctx, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignored=no", "--no-renames", "--ignore-submodules=all")
	if err != nil {
		return nil, err
	}
	var ps []string
	for _, rec := range strings.Split(string(out), "\x00") {
		if len(rec) > 3 {
			ps = append(ps, rec[3:])
		}
	}
	return ps, nil
}

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
	ignored := gitexec.SplitZ(out)
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
	if len(lsArgs) > gitexec.MaxPathArgs {
		lsArgs = lsArgs[:wholeTree] // no paths: the whole tree, filtered below
	}
	out, err = r.run(ctx, cmd{Args: lsArgs, Env: []string{"GIT_LITERAL_PATHSPECS=1"}})
	if err != nil {
		return nil, err
	}
	tracked := gitexec.SplitZ(out)
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

// StatusEntry is one record of `git status --porcelain=v2 -z`.
type StatusEntry struct {
	Kind byte   // '1' changed, 'u' unmerged, '?' untracked ('2' never: renames are off)
	X, Y byte   // index vs HEAD, work tree vs index ('.' for unchanged)
	Sub  string // "N..." or "S<c><m><u>" for submodules
	// Modes in HEAD, the index and the work tree ("000000" when absent);
	// for unmerged entries ModeH is stage 1's, ModeI stage 2's.
	ModeH, ModeI, ModeW string
	// HashH and HashI are the object ids in HEAD and the index.
	HashH, HashI string
	Path         string // from the top of the work tree; untracked folders end in "/"
}

// Status lists what differs between HEAD, the index and the work tree, as
// `git status` does but without touching the index (no refresh is written
// back), without rename detection, with untracked folders collapsed to one
// "dir/" entry (see UntrackedUnder) and submodules compared by commit only.
// It also returns HEAD as the same git call saw it.
func (r *Repo) Status(ctx context.Context) (Head, []StatusEntry, error) {
	args := []string{"status", "--porcelain=v2", "-z", "--branch", "--no-ahead-behind",
		"--untracked-files=normal", "--ignored=no", "--no-renames", "--ignore-submodules=none"}
	run := func(env []string, locks bool) ([]byte, error) {
		a := args
		if locks && r.UntrackedCacheHere() {
			// The stat cache copy keeps an untracked cache too (see
			// UntrackedCacheHere): it is ours, never the user's index.
			a = append([]string{"-c", "core.untrackedCache=true"}, args...)
		}
		return r.run(ctx, cmd{Args: a, FSMonitor: r.StatusFSMonitor,
			Env: append(env, gitexec.HugePagesEnv()...), Locks: locks})
	}
	if r.StatusStatCache {
		if out, ok := r.StatusWithCache(run); ok {
			return parseStatusV2(out)
		}
	}
	out, err := run(nil, false)
	if err != nil {
		return Head{}, nil, err
	}
	return parseStatusV2(out)
}

// FSMonitorSetting returns the core.fsmonitor value that git status could
// use without starting anything: a hook's command as configured, or
// "true" when git's builtin daemon is configured and already running
// (never started on our behalf); "" when it is unset, off, or the daemon
// is not running or not supported here.
func (r *Repo) FSMonitorSetting(ctx context.Context) (string, error) {
	if !r.mayConfigureFSMonitor() {
		return "", nil // no git process for the common case
	}
	v, found, here := r.ConfigLast("core", "fsmonitor")
	if here && !found {
		return "", nil // unset
	}
	if !here {
		// Every child is given -c core.fsmonitor=false: the value wanted
		// is the last one from a file (any scope but "command").
		out, err := r.git(ctx, "config", "--show-scope", "--type=bool-or-str", "--get-all", "core.fsmonitor")
		var ge *Error
		if errors.As(err, &ge) && ge.ExitCode == 1 {
			return "", nil // unset
		}
		if err != nil {
			return "", err
		}
		for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
			if scope, val, ok := strings.Cut(l, "\t"); ok && scope != "command" {
				v = val
			}
		}
	}
	if v == "" || v == "false" {
		return "", nil
	}
	if v == "true" {
		if _, err := r.git(ctx, "fsmonitor--daemon", "status"); err != nil {
			return "", nil // not running (or not supported): not started
		}
	}
	return v, nil
}

func parseStatusV2(out []byte) (Head, []StatusEntry, error) {
	var head Head
	var entries []StatusEntry
	for len(out) > 0 {
		i := bytes.IndexByte(out, 0)
		if i < 0 {
			return head, nil, fmt.Errorf("git status: truncated record %q", out)
		}
		rec := string(out[:i])
		out = out[i+1:]
		if rec == "" {
			continue
		}
		var e StatusEntry
		e.Kind = rec[0]
		switch e.Kind {
		case '?', '!':
			e.Path = rec[2:]
			e.X, e.Y = '?', '?'
		case '1':
			// 1 XY sub mH mI mW hH hI path
			f := strings.SplitN(rec, " ", 9)
			if len(f) != 9 || len(f[1]) != 2 {
				return head, nil, fmt.Errorf("git status: unexpected record %q", rec)
			}
			e.X, e.Y, e.Sub = f[1][0], f[1][1], f[2]
			e.ModeH, e.ModeI, e.ModeW, e.HashH, e.HashI, e.Path = f[3], f[4], f[5], f[6], f[7], f[8]
		case 'u':
			// u XY sub m1 m2 m3 mW h1 h2 h3 path
			f := strings.SplitN(rec, " ", 11)
			if len(f) != 11 || len(f[1]) != 2 {
				return head, nil, fmt.Errorf("git status: unexpected record %q", rec)
			}
			e.X, e.Y, e.Sub = f[1][0], f[1][1], f[2]
			e.ModeH, e.ModeI, e.ModeW, e.HashH, e.HashI, e.Path = f[3], f[4], f[6], f[7], f[8], f[10]
		case '2':
			return head, nil, fmt.Errorf("git status: unexpected rename record %q", rec)
		case '#':
			if v, ok := strings.CutPrefix(rec, "# branch.oid "); ok && v != "(initial)" {
				head.Commit = v
			}
			if v, ok := strings.CutPrefix(rec, "# branch.head "); ok && v != "(detached)" {
				head.Branch = "refs/heads/" + v
			}
			continue
		default:
			return head, nil, fmt.Errorf("git status: unexpected record %q", rec)
		}
		entries = append(entries, e)
	}
	return head, entries, nil
}

// ErrTooMany is returned by UntrackedUnder when the listing passed its limit.
var ErrTooMany = errors.New("too many untracked files")

// UntrackedUnder lists the untracked, not ignored files under the given
// folders (as Status reported them, ending in "/"), like `git status
// --untracked-files=all` would. A nested repository is listed as its folder
// ("dir/"). keep decides for each path whether it counts towards limit;
// when more than limit are counted the listing stops with ErrTooMany (a
// negative limit is no limit).
func (r *Repo) UntrackedUnder(ctx context.Context, dirs []string, limit int, keep func(path string) bool) ([]string, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	args := []string{"ls-files", "-z", "--others", "--exclude-standard", "--"}
	for _, d := range dirs {
		args = append(args, ":(top,literal)"+d)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &gitexec.ZSplitter{Limit: limit, Keep: keep, Cancel: cancel}
	_, err := r.run(ctx, cmd{Args: args, Stdout: w})
	if w.Over {
		return w.Paths, ErrTooMany
	}
	if err != nil {
		return nil, err
	}
	if len(w.Rest) > 0 {
		return nil, fmt.Errorf("git ls-files: truncated output %q", w.Rest)
	}
	return w.Paths, nil
}

// mayConfigureFSMonitor says whether a config file git reads could set
// core.fsmonitor: one that mentions "fsmonitor" or includes another. A
// file it does not know of (one named by an unusual environment) is only
// a missed speed-up, never a wrong answer.
func (r *Repo) mayConfigureFSMonitor() bool {
	return r.ConfigMayMention("fsmonitor")
}

// IgnoredIncludes lists the untracked files that match the gitignore-style
// patterns in includeFile (a .worktreeinclude) and that git's own ignore
// rules ignore, leaving out everything under the folders in skip.
func (r *Repo) IgnoredIncludes(ctx context.Context, includeFile string, skip ...string) ([]string, error) {
	args := []string{"ls-files", "-z", "--others", "--ignored", "--exclude-from=" + includeFile, "--", "."}
	for _, s := range skip {
		args = append(args, ":(exclude,top,literal)"+s)
	}
	out, err := r.git(ctx, args...)
	if err != nil {
		return nil, err
	}
	candidates := gitexec.SplitZ(out)
	if len(candidates) == 0 {
		return nil, nil
	}
	var in bytes.Buffer
	for _, c := range candidates {
		in.WriteString(c)
		in.WriteByte(0)
	}
	out, err = r.run(ctx, cmd{Args: []string{"check-ignore", "-z", "--stdin", "--no-index"}, Stdin: &in})
	if err != nil && ExitCode(err) != 1 { // 1: none ignored
		return nil, err
	}
	return gitexec.SplitZ(out), nil
}
