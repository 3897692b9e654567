package git

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
)

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
	run := func(env []string, locks bool) ([]byte, error) {
		return r.run(ctx, cmd{args: []string{"status", "--porcelain=v2", "-z", "--branch", "--no-ahead-behind",
			"--untracked-files=normal", "--ignored=no", "--no-renames", "--ignore-submodules=none"},
			fsmonitor: r.StatusFSMonitor, env: env, locks: locks})
	}
	if r.StatusStatCache {
		if out, ok := r.statusWithCache(run); ok {
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
	// Every child is given -c core.fsmonitor=false: the value wanted is
	// the last one from a file (any scope but "command").
	out, err := r.git(ctx, "config", "--show-scope", "--type=bool-or-str", "--get-all", "core.fsmonitor")
	var ge *Error
	if errors.As(err, &ge) && ge.ExitCode == 1 {
		return "", nil // unset
	}
	if err != nil {
		return "", err
	}
	v := ""
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if scope, val, ok := strings.Cut(l, "\t"); ok && scope != "command" {
			v = val
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
	w := &zSplitter{limit: limit, keep: keep, cancel: cancel}
	_, err := r.run(ctx, cmd{args: args, stdout: w})
	if w.over {
		return w.paths, ErrTooMany
	}
	if err != nil {
		return nil, err
	}
	if len(w.rest) > 0 {
		return nil, fmt.Errorf("git ls-files: truncated output %q", w.rest)
	}
	return w.paths, nil
}

// zSplitter collects NUL-terminated records as they stream in and stops the
// producer once more than limit records are kept.
type zSplitter struct {
	rest   []byte
	paths  []string
	kept   int
	limit  int
	keep   func(string) bool
	over   bool
	cancel func()
}

func (z *zSplitter) Write(p []byte) (int, error) {
	if z.over {
		return 0, io.ErrClosedPipe
	}
	z.rest = append(z.rest, p...)
	for {
		i := bytes.IndexByte(z.rest, 0)
		if i < 0 {
			break
		}
		path := string(z.rest[:i])
		z.rest = z.rest[i+1:]
		z.paths = append(z.paths, path)
		if z.keep == nil || z.keep(path) {
			z.kept++
		}
		if z.limit >= 0 && z.kept > z.limit {
			z.over = true
			z.cancel()
			return 0, io.ErrClosedPipe
		}
	}
	return len(p), nil
}

// privateIndexSeq numbers the private indexes of this process.
var privateIndexSeq atomic.Uint64

// newPrivateIndex is the one way this package names a private index: a file
// <name>-<pid>-<n>.index in this worktree's git dir, created empty and
// exclusively, so no two callers share one and a leftover of a killed
// process whose pid came round again is never reused. The pid says whose
// it is if a kill leaves it behind: LeftoverIndexes(name) lists such files.
// The returned remove is the one cleanup rule for every private index: the
// file goes, and so does the <file>.lock git may have left beside it.
func (r *Repo) newPrivateIndex(name string) (*os.File, Index, func(), error) {
	for {
		path := filepath.Join(r.GitDir, fmt.Sprintf("%s-%d-%d.index", name, os.Getpid(), privateIndexSeq.Add(1)))
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, Index{}, nil, err
		}
		return f, Index{Path: path}, func() {
			os.Remove(path)
			os.Remove(path + ".lock")
		}, nil
	}
}

// emptyPrivateIndex is newPrivateIndex for an index that starts empty: the
// file is left absent, which is how git spells an empty index (git refuses
// an empty file), and is created by the first git command that writes it.
func (r *Repo) emptyPrivateIndex(name string) (Index, func(), error) {
	f, ix, remove, err := r.newPrivateIndex(name)
	if err != nil {
		return Index{}, nil, err
	}
	f.Close()
	remove()
	return ix, remove, nil
}

// HashWorkTreePaths returns, for each path that holds something in the
// work tree now, the entry `git add` would record: content through the
// clean and end-of-line filters, executable bit, symlink, or a
// submodule's checked-out commit; the objects are written. Paths with
// nothing in the work tree are left out. seeds are the user's index entries
// of those paths: git's rules that look at the current entry
// (core.fileMode=false, core.symlinks=false, the autocrlf rule for files
// committed with CRLF) see them as git add would. It works in a small index
// of its own (one update-index call, read back here); the user's index is
// not read or written.
func (r *Repo) HashWorkTreePaths(ctx context.Context, seeds []IndexEntry, paths []string) ([]IndexEntry, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	ix, remove, err := r.emptyPrivateIndex("nudge-hash")
	if err != nil {
		return nil, err
	}
	defer remove()
	args := append(append([]string{}, privateIndexArgs...), "-c", "index.version=2",
		"update-index", "--add", "--remove", "--replace")
	// Seeds ride on the command line while it stays short; past that they
	// take a call of their own.
	argBytes := 0
	for _, s := range seeds {
		argBytes += len(s.Path) + 80
	}
	if argBytes <= 64<<10 {
		for _, s := range seeds {
			args = append(args, "--cacheinfo", s.Mode+","+s.Blob+","+s.Path)
		}
	} else if err := r.UpdateIndexEntries(ctx, ix, seeds); err != nil {
		return nil, err
	}
	args = append(args, "-z", "--stdin")
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(p)
		in.WriteByte(0)
	}
	if _, err := r.run(ctx, cmd{args: args, env: ix.env(), stdin: &in}); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(ix.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // every path was a removal
	}
	if err != nil {
		return nil, err
	}
	return parseIndex(data, r.hashLen())
}

// parseIndex reads the entries of an index file of version 2 or 3 (the
// small indexes this package writes itself).
func parseIndex(data []byte, hashLen int) ([]IndexEntry, error) {
	if len(data) >= 8 && binary.BigEndian.Uint32(data[4:8]) == 4 {
		return nil, errors.New("reading a private index: unexpected version 4")
	}
	var entries []IndexEntry
	_, err := walkIndex(data, hashLen, func(e indexEntry) {
		if stage := (e.flags >> 12) & 3; stage == 0 {
			entries = append(entries, IndexEntry{Mode: fmt.Sprintf("%06o", e.mode), Blob: hex.EncodeToString(e.oid), Path: string(e.name)})
		}
	})
	if err != nil {
		return nil, fmt.Errorf("reading a private index: %w", err)
	}
	return entries, nil
}

// privateIndexArgs keep a private index self-contained: never split into a
// shared index file in the git dir.
var privateIndexArgs = []string{"-c", "core.splitIndex=false"}

// WriteEmptyTree stores the empty tree object (git only pretends to have it
// until someone writes it) and returns its id.
func (r *Repo) WriteEmptyTree(ctx context.Context) (string, error) {
	return r.line(ctx, "mktree", "-z")
}

// ConfigValues returns every value of the keys matching the regular
// expression re, keyed by git's canonical (lower-case) key name, in order.
func (r *Repo) ConfigValues(ctx context.Context, re string) (map[string][]string, error) {
	out, err := r.git(ctx, "config", "-z", "--get-regexp", re)
	if err != nil {
		if ExitCode(err) == 1 {
			return map[string][]string{}, nil
		}
		return nil, err
	}
	vals := map[string][]string{}
	for _, rec := range splitZ(out) {
		k, v, _ := strings.Cut(rec, "\n")
		vals[k] = append(vals[k], v)
	}
	return vals, nil
}

// mayConfigureFSMonitor says whether a config file git reads could set
// core.fsmonitor: one that mentions "fsmonitor" or includes another. A
// file it does not know of (one named by an unusual environment) is only
// a missed speed-up, never a wrong answer.
func (r *Repo) mayConfigureFSMonitor() bool {
	return r.configMentions("fsmonitor")
}

// ConfigMayMention says whether git config could hold a setting whose
// name or value holds one of words (lower case): false only when no config
// file git reads mentions any of them or includes another file, and no
// config comes from the environment (git -c, GIT_CONFIG_COUNT,
// GIT_CONFIG). A cheap, conservative test that spares a git config call
// in the common case.
func (r *Repo) ConfigMayMention(words ...string) bool { return r.configMentions(words...) }

func (r *Repo) configMentions(words ...string) bool {
	for _, k := range []string{"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG"} {
		if os.Getenv(k) != "" {
			return true
		}
	}
	files := []string{filepath.Join(r.CommonDir, "config"), filepath.Join(r.GitDir, "config.worktree")}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		files = append(files, g)
	} else {
		if home, err := os.UserHomeDir(); err == nil {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" {
			if home, err := os.UserHomeDir(); err == nil {
				xdg = filepath.Join(home, ".config")
			}
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
	}
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		if s := os.Getenv("GIT_CONFIG_SYSTEM"); s != "" {
			files = append(files, s)
		} else {
			files = append(files, "/etc/gitconfig")
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		low := bytes.ToLower(data)
		if bytes.Contains(low, []byte("include")) {
			return true
		}
		for _, w := range words {
			if bytes.Contains(low, []byte(w)) {
				return true
			}
		}
	}
	return false
}
