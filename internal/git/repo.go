package git

// This file holds a repository: finding it, its object format, and
// what its git dir says without a git process (an operation in progress).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/nudgethis/git-nudge/internal/gitindex"
	"github.com/nudgethis/git-nudge/internal/gitstore"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
	"golang.org/x/sys/unix"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/txn"
)

// ErrNotRepository is returned by Discover outside any git repository.
var ErrNotRepository = errors.New("not a git repository")

// ErrBare is returned by Discover in a bare repository or inside a .git folder.
var ErrBare = errors.New("this command needs a work tree, and this repository has none (bare, or run from inside .git)")

// Repo is a discovered repository with a work tree. Its embedded Files
// (package gitindex: the index files) and their Store (package gitstore:
// objects, ref and config files, trees) read and write git's files in
// this process; Repo's own methods start git. The Store's paths (GitDir,
// CommonDir, WorkTree, ObjectFormat) are Repo's, promoted.
type Repo struct {
	*gitindex.Files
	// StatusFSMonitor, when set, is the core.fsmonitor value (a hook's
	// command, or "true" for git's daemon) that Status lets git use; every
	// other git child runs with core.fsmonitor off. See FSMonitorSetting.
	StatusFSMonitor string
	// StatusStatCache lets Status run on the stat cache (gitindex's
	// statcache.go), a private copy of the index whose refreshed stat data
	// is kept: only for the workspace's own snapshot, under its lock.
	StatusStatCache bool
	// Tx is the transaction of the command r works for (nil: none),
	// told of every ref r is about to change. Discover takes it from the
	// context (txn.With); a repository derived from r (WorktreeRepo,
	// Worktree) carries r's.
	Tx txn.Tx
}

// newRepo is the repository at these absolute paths, its Store asking it
// for whatever needs a git process.
func newRepo(gitDir, commonDir, workTree, objectFormat string) *Repo {
	s := &gitstore.Store{GitDir: gitDir, CommonDir: commonDir, WorkTree: workTree, ObjectFormat: objectFormat}
	r := &Repo{Files: &gitindex.Files{Store: s}}
	s.Git = r
	return r
}

// Discover finds the repository that git itself would use when started in
// dir, honouring an inherited GIT_DIR / GIT_WORK_TREE (as set by
// `git --git-dir` or by the user) exactly like git does.
//
// Two discoveries of the same folder in a row within a second (the
// operation log's recorder, then the command it records) cost one git
// process: the second takes the first's answer, once.
func Discover(ctx context.Context, dir string) (*Repo, error) {
	key := discoverKey(dir)
	memo.Lock()
	if memo.key == key && time.Since(memo.at) < time.Second {
		r := memo.repo
		memo.key = ""
		memo.Unlock()
		n := newRepo(r.GitDir, r.CommonDir, r.WorkTree, r.ObjectFormat)
		n.Tx = txn.From(ctx)
		return n, nil
	}
	memo.Unlock()
	r, err := discover(ctx, dir)
	if err == nil {
		r.Tx = txn.From(ctx)
		memo.Lock()
		memo.key, memo.at = key, time.Now()
		memo.repo = gitstore.Store{GitDir: r.GitDir, CommonDir: r.CommonDir, WorkTree: r.WorkTree, ObjectFormat: r.ObjectFormat}
		memo.Unlock()
	}
	return r, err
}

var memo struct {
	sync.Mutex
	key  string
	at   time.Time
	repo gitstore.Store // only its paths
}

// discoverKey is what discovery depends on: the folder (and the current
// one) and the variables git reads to find a repository.
func discoverKey(dir string) string {
	wd, _ := os.Getwd()
	k := dir + "\x00" + wd
	for _, v := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM"} {
		val, ok := os.LookupEnv(v)
		k += fmt.Sprintf("\x00%v=%s", ok, val)
	}
	return k
}

func discover(ctx context.Context, dir string) (*Repo, error) {
	if r, ok := discoverFast(dir); ok {
		return r, nil
	}
	args := []string{"rev-parse", "--path-format=absolute",
		"--git-dir", "--git-common-dir", "--show-object-format", "--is-bare-repository", "--show-toplevel"}
	x := command(ctx, discoverEnv(os.Environ()), dir, args)
	var stderr strings.Builder
	x.Stderr = &stderr
	out, err := x.Output()
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if err != nil {
		msg := stderr.String()
		switch {
		case strings.Contains(msg, "not a git repository"):
			return nil, ErrNotRepository
		case strings.Contains(msg, "must be run in a work tree"), len(lines) >= 4 && lines[3] == "true":
			return nil, ErrBare
		}
		return nil, gitError(args, msg, err)
	}
	if len(lines) < 5 || lines[3] == "true" {
		return nil, ErrBare
	}
	return newRepo(filepath.Clean(lines[0]), filepath.Clean(lines[1]), filepath.Clean(lines[4]), lines[2]), nil
}

// discoverFast is what discover's git rev-parse answers, worked out in
// this process for the usual layout: no variable that changes how git
// finds a repository, a work tree whose .git is a folder or a gitfile
// (linked worktrees, submodules) owned by the user, a repository config
// that parses and says nothing about bare, core.worktree, includes or
// extensions other than the object format. Paths are resolved as git
// prints them (symbolic links followed). ok is false for anything else,
// and git is asked (its own messages then say what is wrong).
func discoverFast(dir string) (*Repo, bool) {
	for _, v := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES",
		"GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"} {
		if _, set := os.LookupEnv(v); set {
			return nil, false
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, false
	}
	d, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, false
	}
	dev, ok := deviceOf(d)
	if !ok {
		return nil, false
	}
	for {
		dotgit := filepath.Join(d, ".git")
		fi, err := os.Lstat(dotgit)
		switch {
		case err == nil && fi.IsDir():
			return repoAt(d, dotgit)
		case err == nil && fi.Mode().IsRegular():
			data, err := journal.ReadRegular(dotgit) // a fifo swapped in after the look is refused, never waited on
			target, found := strings.CutPrefix(strings.TrimRight(string(data), "\r\n"), "gitdir: ")
			if err != nil || !found || target == "" || strings.ContainsAny(target, "\n\x00") {
				return nil, false
			}
			if !ownedByMe(dotgit) {
				return nil, false
			}
			if !filepath.IsAbs(target) {
				// Not Join: ".." must apply to the path with its links
				// followed, as git resolves it (EvalSymlinks does).
				target = d + string(filepath.Separator) + target
			}
			return repoAt(d, target)
		case err == nil || !errors.Is(err, fs.ErrNotExist):
			return nil, false // a link or something else named .git
		}
		if filepath.Base(d) == ".git" || isGitDir(d) {
			return nil, false // inside a git dir, or a bare repository
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, false // none: git says so in its words
		}
		if pdev, ok := deviceOf(parent); !ok || pdev != dev {
			return nil, false // git stops at a file system boundary
		}
		d = parent
	}
}

// repoAt completes discoverFast for the work tree top whose git dir is
// gitDir.
func repoAt(top, gitDir string) (*Repo, bool) {
	gitDir, err := filepath.EvalSymlinks(gitDir)
	if err != nil || !isGitDir(gitDir) {
		return nil, false
	}
	common := gitDir
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimRight(string(data), "\r\n")
		if c == "" || strings.ContainsAny(c, "\n\x00") {
			return nil, false
		}
		if !filepath.IsAbs(c) {
			c = gitDir + string(filepath.Separator) + c // see discoverFast
		}
		if common, err = filepath.EvalSymlinks(c); err != nil {
			return nil, false
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	for _, p := range []string{filepath.Join(common, "objects"), filepath.Join(common, "refs")} {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			return nil, false
		}
	}
	// git checks who owns the repository (safe.directory): anything not
	// the user's is left to it.
	for _, p := range []string{top, gitDir, common} {
		if !ownedByMe(p) {
			return nil, false
		}
	}
	format, ok := plainRepoConfig(filepath.Join(common, "config"))
	if !ok {
		return nil, false
	}
	return newRepo(gitDir, common, top, format), true
}

// isGitDir is git's test for a git dir: a HEAD that names a ref or holds a
// commit id, and objects and refs (or a commondir file, in a linked
// worktree's git dir). A HEAD that is a link is git's to judge.
func isGitDir(d string) bool {
	b, err := gitstore.ReadSmall(filepath.Join(d, "HEAD"))
	if err != nil {
		return false
	}
	head := strings.TrimRight(string(b), "\n")
	if !strings.HasPrefix(head, "ref: refs/") && !gitstore.IsHexID(head) {
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
	if err != nil || !gitstore.PlainConfigText(data) {
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

// discoverEnv is the environment policy for discovery, which must see what
// the user set (GIT_DIR, GIT_WORK_TREE, -C): only the index and object
// overrides are dropped, and git's messages are kept in English.
func discoverEnv(base []string) []string {
	env := []string{}
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if k == "GIT_INDEX_FILE" || k == "GIT_OBJECT_DIRECTORY" || k == "GIT_PREFIX" {
			continue
		}
		env = append(env, kv)
	}
	return untranslated(env)
}

// OperationInProgress names the multi-step git operation this worktree is
// in the middle of ("merge", "rebase", "cherry-pick", "revert"), or "".
// It only looks at files in the git dir: no git process.
func (r *Repo) OperationInProgress() string {
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
func (r *Repo) HeadRefLock() string {
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

func samePath(a, b string) bool {
	if a == b {
		return true
	}
	ea, err1 := filepath.EvalSymlinks(a)
	eb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ea == eb
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
