package gitstore

// This file holds finding a repository from its files, without a git
// process: where its git dir, common dir and work tree are, its object
// format, and what its git dir says (an operation in progress, a lock
// left on HEAD's ref).

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
	"golang.org/x/sys/unix"
)

// Layout is where a repository's files are: absolute paths with symbolic
// links followed, as git prints them, and its object format.
type Layout struct {
	GitDir, CommonDir, WorkTree, ObjectFormat string
}

// FindLayout is what git rev-parse --git-dir --git-common-dir
// --show-object-format --show-toplevel answers when started in dir, worked
// out in this process for the usual layout: no variable that changes how git
// finds a repository, a work tree whose .git is a folder or a gitfile
// (linked worktrees, submodules) owned by the user, a repository config
// that parses and says nothing about bare, core.worktree, includes or
// extensions other than the object format. Paths are resolved as git
// prints them (symbolic links followed). ok is false for anything else,
// and the caller asks git (its own messages then say what is wrong).
// readGitFile reads a .git file (a gitfile); it must refuse anything but a
// regular file, never wait on a fifo swapped in after the look.
func FindLayout(dir string, readGitFile func(path string) ([]byte, error)) (Layout, bool) {
	for _, v := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES",
		"GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"} {
		if _, set := os.LookupEnv(v); set {
			return Layout{}, false
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Layout{}, false
	}
	d, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return Layout{}, false
	}
	dev, ok := deviceOf(d)
	if !ok {
		return Layout{}, false
	}
	for {
		dotgit := filepath.Join(d, ".git")
		fi, err := os.Lstat(dotgit)
		switch {
		case err == nil && fi.IsDir():
			return layoutAt(d, dotgit)
		case err == nil && fi.Mode().IsRegular():
			data, err := readGitFile(dotgit)
			target, found := strings.CutPrefix(strings.TrimRight(string(data), "\r\n"), "gitdir: ")
			if err != nil || !found || target == "" || strings.ContainsAny(target, "\n\x00") {
				return Layout{}, false
			}
			if !ownedByMe(dotgit) {
				return Layout{}, false
			}
			if !filepath.IsAbs(target) {
				// Not Join: ".." must apply to the path with its links
				// followed, as git resolves it (EvalSymlinks does).
				target = d + string(filepath.Separator) + target
			}
			return layoutAt(d, target)
		case err == nil || !errors.Is(err, fs.ErrNotExist):
			return Layout{}, false // a link or something else named .git
		}
		if filepath.Base(d) == ".git" || isGitDir(d) {
			return Layout{}, false // inside a git dir, or a bare repository
		}
		parent := filepath.Dir(d)
		if parent == d {
			return Layout{}, false // none: git says so in its words
		}
		if pdev, ok := deviceOf(parent); !ok || pdev != dev {
			return Layout{}, false // git stops at a file system boundary
		}
		d = parent
	}
}

// layoutAt completes FindLayout for the work tree top whose git dir is
// gitDir.
func layoutAt(top, gitDir string) (Layout, bool) {
	gitDir, err := filepath.EvalSymlinks(gitDir)
	if err != nil || !isGitDir(gitDir) {
		return Layout{}, false
	}
	common := gitDir
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimRight(string(data), "\r\n")
		if c == "" || strings.ContainsAny(c, "\n\x00") {
			return Layout{}, false
		}
		if !filepath.IsAbs(c) {
			c = gitDir + string(filepath.Separator) + c // see FindLayout
		}
		if common, err = filepath.EvalSymlinks(c); err != nil {
			return Layout{}, false
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Layout{}, false
	}
	for _, p := range []string{filepath.Join(common, "objects"), filepath.Join(common, "refs")} {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			return Layout{}, false
		}
	}
	// git checks who owns the repository (safe.directory): anything not
	// the user's is left to it.
	for _, p := range []string{top, gitDir, common} {
		if !ownedByMe(p) {
			return Layout{}, false
		}
	}
	format, ok := plainRepoConfig(filepath.Join(common, "config"))
	if !ok {
		return Layout{}, false
	}
	return Layout{GitDir: gitDir, CommonDir: common, WorkTree: top, ObjectFormat: format}, true
}

// isGitDir is git's test for a git dir: a HEAD that names a ref or holds a
// commit id, and objects and refs (or a commondir file, in a linked
// worktree's git dir). A HEAD that is a link is git's to judge.
func isGitDir(d string) bool {
	b, err := ReadSmall(filepath.Join(d, "HEAD"))
	if err != nil {
		return false
	}
	head := strings.TrimRight(string(b), "\n")
	if !strings.HasPrefix(head, "ref: refs/") && !IsHexID(head) {
		return false
	}
	if _, err := os.Stat(filepath.Join(d, "commondir")); err == nil {
		return true
	}
	st, err := os.Stat(filepath.Join(d, "objects"))
	return err == nil && st.IsDir()
}

// plainRepoConfig reads a repository's config file: the object format, and
// ok false when it says anything discovery would have to follow (bare,
// core.worktree, an include, an extension other than the object format).
func plainRepoConfig(path string) (format string, ok bool) {
	data, err := os.ReadFile(path)
	if err != nil || !PlainConfigText(data) {
		return "", false
	}
	var cfg gitconfig.Config
	if err := gitconfig.NewDecoder(bytes.NewReader(data)).Decode(&cfg); err != nil {
		return "", false
	}
	format = "sha1"
	for _, sec := range cfg.Sections {
		switch {
		case strings.EqualFold(sec.Name, "core"):
			for _, o := range sec.Options {
				switch strings.ToLower(o.Key) {
				case "worktree":
					return "", false
				case "bare":
					if !strings.EqualFold(o.Value, "false") {
						return "", false
					}
				}
			}
		case strings.EqualFold(sec.Name, "extensions"):
			for _, o := range sec.Options {
				if !strings.EqualFold(o.Key, "objectformat") {
					return "", false
				}
				switch v := strings.ToLower(o.Value); v {
				case "sha1", "sha256":
					format = v
				default:
					return "", false
				}
			}
		}
	}
	return format, true
}

// OperationInProgress names the multi-step git operation this worktree is
// in the middle of ("merge", "rebase", "cherry-pick", "revert"), or "".
// It only looks at files in the git dir: no git process.
func (r *Store) OperationInProgress() string {
	for _, op := range []struct{ file, name string }{
		{"rebase-merge", "rebase"}, {"rebase-apply", "rebase"},
		{"MERGE_HEAD", "merge"}, {"CHERRY_PICK_HEAD", "cherry-pick"}, {"REVERT_HEAD", "revert"},
	} {
		if _, err := os.Lstat(filepath.Join(r.GitDir, op.file)); err == nil {
			return op.name
		}
	}
	return ""
}

// HeadRefLock is the lock file git holds while it moves HEAD or the branch
// HEAD names (HEAD.lock, refs/heads/<branch>.lock) when one exists, else
// "". A git killed while it moved the ref leaves it, and every later move
// fails on it: git reset --hard then rewrites the files and the index but
// not HEAD. It only looks at files: no git process.
func (r *Store) HeadRefLock() string {
	locks := []string{filepath.Join(r.GitDir, "HEAD.lock")}
	if b, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD")); err == nil {
		if ref, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: "); ok && strings.HasPrefix(ref, "refs/") && !strings.Contains(ref, "..") {
			locks = append(locks, filepath.Join(r.CommonDir, filepath.FromSlash(ref)+".lock"))
		}
	}
	for _, l := range locks {
		if _, err := os.Lstat(l); err == nil {
			return l
		}
	}
	return ""
}

// deviceOf is the file system p is on.
func deviceOf(p string) (uint64, bool) {
	var s unix.Stat_t
	if err := unix.Stat(p, &s); err != nil {
		return 0, false
	}
	return uint64(s.Dev), true
}

// ownedByMe reports whether p belongs to this process's user. Under sudo
// git also accepts SUDO_UID's files: that case is left to git.
func ownedByMe(p string) bool {
	if os.Geteuid() == 0 && os.Getenv("SUDO_UID") != "" {
		return false
	}
	var s unix.Stat_t
	return unix.Stat(p, &s) == nil && int(s.Uid) == os.Geteuid()
}
