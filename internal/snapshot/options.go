// Package snapshot captures a work tree (the user's workspace or a task's
// linked worktree) into a git tree without touching it: local edits,
// staged or not, and untracked files, through a private index. It decides
// what is left out (ignored files, dependency folders, large untracked
// files, protected paths) and reports every path it skipped and why.
package snapshot

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/nudgethis/git-nudge/internal/git"
)

// DefaultMaxUntracked is nudge.maxUntracked when unset.
const DefaultMaxUntracked = 10000

// MaxFileSize is the largest untracked file a capture takes (16 MiB).
const MaxFileSize int64 = git.MaxFileSize

// DependencyDirs are folder names never captured when untracked, even when
// no ignore rule covers them.
var DependencyDirs = []string{"node_modules", ".venv", "venv", "__pycache__", ".tox", "bower_components"}

// BuiltinProtected are the protected paths no configuration can lift, in
// gitignore syntax: git's folder, the two tools' state folders, secrets,
// and .worktreeinclude (which decides what ignored files every later task
// gets a copy of).
var BuiltinProtected = []string{".git", "/.nudgethis", ".env", "/.autodev", "/.worktreeinclude"}

// ProtectedSummary names the protected paths for messages.
const ProtectedSummary = ".git, .nudgethis, .autodev, .env, .worktreeinclude or nudge.protect"

// Skip reasons, as printed and written into task records.
const (
	ReasonProtected  = "protected path"
	ReasonDependency = "dependency directory"
	ReasonTooLarge   = "untracked file over 16 MiB"
	ReasonNestedRepo = "nested git repository"
	ReasonSubmodule  = "submodule: changes inside it are never captured"
)

// Options are the capture rules, from git config (see LoadOptions).
type Options struct {
	// Protect are extra protected-path patterns (gitignore syntax, from
	// nudge.protect) on top of BuiltinProtected.
	Protect []string
	// SkipDirs are extra dependency folder names (nudge.skipDir); a value
	// with a slash is a folder path from the top of the work tree.
	SkipDirs []string
	// MaxUntracked is the most untracked files one capture takes (0: no
	// limit).
	MaxUntracked int
	// MaxFileSize is the largest untracked file captured.
	MaxFileSize int64
}

// LoadOptions reads nudge.protect, nudge.skipDir and nudge.maxUntracked
// from git config (one git call, none when no config file mentions
// nudge). They are SnapshotPolicy's options; Policy.LoadOptions reads a
// policy's.
func LoadOptions(ctx context.Context, repo *git.Repo) (Options, error) {
	return loadOptions(ctx, repo, nil, "")
}

// loadOptions is LoadOptions with the patterns extra and the values of the
// config key protectKey ("" for none) added to Protect, in that order
// after nudge.protect's.
func loadOptions(ctx context.Context, repo *git.Repo, extra []string, protectKey string) (Options, error) {
	o := Options{MaxUntracked: DefaultMaxUntracked, MaxFileSize: MaxFileSize}
	names := []string{"protect", "skipdir", "maxuntracked"}
	if protectKey != "" {
		names = append(names, strings.ToLower(protectKey[strings.LastIndex(protectKey, ".")+1:]))
	}
	if !repo.ConfigMayMention(names...) {
		// No config file names these settings: no git call.
		o.Protect = append(o.Protect, extra...)
		return o, nil
	}
	re := `^nudge\.(protect|skipdir|maxuntracked)$`
	if protectKey != "" {
		re = `^(nudge\.(protect|skipdir|maxuntracked)|` + regexp.QuoteMeta(strings.ToLower(protectKey)) + `)$`
	}
	vals, err := repo.ConfigValues(ctx, re)
	if err != nil {
		return o, err
	}
	o.Protect = nonEmpty(vals["nudge.protect"])
	o.Protect = append(o.Protect, extra...)
	if protectKey != "" {
		o.Protect = append(o.Protect, nonEmpty(vals[strings.ToLower(protectKey)])...)
	}
	o.SkipDirs = nonEmpty(vals["nudge.skipdir"])
	if v := vals["nudge.maxuntracked"]; len(v) > 0 {
		n, ok := git.ParseConfigInt(strings.TrimSpace(v[len(v)-1]))
		var err error
		if !ok { // another spelling git reads (octal, hex): git says what it is
			n, err = repo.ConfigInt(ctx, "nudge.maxUntracked", DefaultMaxUntracked)
		}
		if err != nil || n < 0 {
			return o, fmt.Errorf("git config nudge.maxUntracked is %q, not a number of files: fix it with git config nudge.maxUntracked 10000", v[len(v)-1])
		}
		o.MaxUntracked = int(n)
	}
	return o, nil
}

func nonEmpty(vs []string) []string {
	var out []string
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// matchers builds the compiled protected-path rules.
func (o Options) matchers() (builtin, user gitignore.Matcher) {
	var b, u []gitignore.Pattern
	for _, p := range BuiltinProtected {
		b = append(b, gitignore.ParsePattern(p, nil))
	}
	for _, p := range o.Protect {
		if strings.HasPrefix(p, "#") {
			continue
		}
		// Matched against folded names (see foldName): the pattern too.
		u = append(u, gitignore.ParsePattern(strings.ToLower(p), nil))
	}
	return gitignore.NewMatcher(b), gitignore.NewMatcher(u)
}

// Protected reports whether path (from the top of the work tree, "/"
// separated; a trailing "/" marks a folder) is protected: covered by a
// built-in pattern or by nudge.protect.
func (o Options) Protected(path string) bool {
	b, u := o.matchers()
	return protectedBy(b, u, path)
}

// Protection answers Protected for many paths with the rules compiled once.
type Protection struct{ builtin, user gitignore.Matcher }

// Protection compiles o's protected-path rules.
func (o Options) Protection() Protection {
	b, u := o.matchers()
	return Protection{b, u}
}

// Protected reports whether path is protected.
func (p Protection) Protected(path string) bool { return protectedBy(p.builtin, p.user, path) }

func protectedBy(b, u gitignore.Matcher, path string) bool {
	isDir := strings.HasSuffix(path, "/")
	parts := strings.Split(strings.Trim(path, "/"), "/")
	// Each name is compared as a case-insensitive file system (macOS,
	// Windows) would resolve it: ".ENV" is ".env", ".git. " is ".git",
	// "NUDGET~1" may be ".nudgethis" (see foldName).
	for i, c := range parts {
		parts[i] = foldName(c)
		// ".git" in any spelling is git's own folder on some file
		// system: never ours to touch, at any depth.
		if parts[i] == ".git" {
			return true
		}
	}
	// A pattern naming a folder covers everything below it: try each
	// leading folder as well as the full path.
	for i := 1; i <= len(parts); i++ {
		dir := i < len(parts) || isDir
		if b.Match(parts[:i], dir) || u.Match(parts[:i], dir) {
			return true
		}
	}
	return false
}

// foldName is the name a case-insensitive file system may resolve the path
// element c to, the way git's verify_path reasons about ".git": lower case;
// an NTFS alternate data stream suffix (":stream") and trailing dots and
// spaces dropped; and an NTFS 8.3 short name of a built-in protected name
// ("GIT~1", "NUDGET~1", "ENV~1") taken as that name. Folding only ever
// makes more paths protected.
func foldName(c string) string {
	if i := strings.IndexByte(c, ':'); i > 0 {
		c = c[:i]
	}
	c = strings.ToLower(strings.TrimRight(c, ". "))
	if t := strings.IndexByte(c, '~'); t > 0 && len(c) == t+2 && c[t+1] >= '1' && c[t+1] <= '9' {
		for _, p := range BuiltinProtected {
			long := strings.TrimPrefix(strings.TrimPrefix(p, "/"), ".")
			if c[:t] == long[:min(6, len(long))] {
				return "." + long
			}
		}
	}
	return c
}

// dependencyDir returns the leading folder of path that is a dependency
// folder ("web/node_modules/"), if any. The last element counts only when
// path names a folder (ends in "/").
func (o Options) dependencyDir(path string) (string, bool) {
	isDir := strings.HasSuffix(path, "/")
	parts := strings.Split(strings.Trim(path, "/"), "/")
	n := len(parts)
	if !isDir {
		n--
	}
	for i := 0; i < n; i++ {
		prefix := strings.Join(parts[:i+1], "/")
		if isDependencyName(parts[i]) {
			return prefix + "/", true
		}
		for _, d := range o.SkipDirs {
			d = strings.Trim(d, "/")
			if strings.Contains(d, "/") {
				if prefix == d {
					return prefix + "/", true
				}
			} else if parts[i] == d {
				return prefix + "/", true
			}
		}
	}
	return "", false
}

func isDependencyName(name string) bool {
	for _, d := range DependencyDirs {
		if name == d {
			return true
		}
	}
	return false
}
