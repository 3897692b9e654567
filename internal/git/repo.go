package git

// This file holds a repository: finding it (in process where gitstore's
// FindLayout can, else by git rev-parse) and its object format.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nudgethis/git-nudge/internal/gitexec"
	"github.com/nudgethis/git-nudge/internal/gitindex"
	"github.com/nudgethis/git-nudge/internal/gitstore"
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
	x := gitexec.Command(ctx, gitexec.DiscoverEnv(os.Environ()), dir, args)
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
		return nil, gitexec.GitError(args, msg, err)
	}
	if len(lines) < 5 || lines[3] == "true" {
		return nil, ErrBare
	}
	return newRepo(filepath.Clean(lines[0]), filepath.Clean(lines[1]), filepath.Clean(lines[4]), lines[2]), nil
}

// discoverFast is discover's answer worked out in this process
// (gitstore.FindLayout), for the usual layout; ok is false for anything
// else, and git is asked.
func discoverFast(dir string) (*Repo, bool) {
	l, ok := gitstore.FindLayout(dir, journal.ReadRegular) // a fifo swapped in after the look is refused, never waited on
	if !ok {
		return nil, false
	}
	return newRepo(l.GitDir, l.CommonDir, l.WorkTree, l.ObjectFormat), true
}

func samePath(a, b string) bool {
	if a == b {
		return true
	}
	ea, err1 := filepath.EvalSymlinks(a)
	eb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ea == eb
}
