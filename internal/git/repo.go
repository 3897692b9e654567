package git

// This file holds a repository: finding it, its object format, and
// what its git dir says without a git process (an operation in progress).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// ErrNotRepository is returned by Discover outside any git repository.
var ErrNotRepository = errors.New("not a git repository")

// ErrBare is returned by Discover in a bare repository or inside a .git folder.
var ErrBare = errors.New("this command needs a work tree, and this repository has none (bare, or run from inside .git)")

// Repo is a discovered repository with a work tree.
type Repo struct {
	GitDir       string // this worktree's git dir, absolute
	CommonDir    string // the shared git dir, absolute (== GitDir outside linked worktrees)
	WorkTree     string // top level of the work tree, absolute
	ObjectFormat string // "sha1" or "sha256"
	// StatusFSMonitor, when set, is the core.fsmonitor value (a hook's
	// command, or "true" for git's daemon) that Status lets git use; every
	// other git child runs with core.fsmonitor off. See FSMonitorSetting.
	StatusFSMonitor string
	// fast caches fastOK's answer (0 not yet known, 1 yes, 2 no).
	fast int32
	// StatusStatCache lets Status run on the stat cache (statcache.go), a
	// private copy of the index whose refreshed stat data is kept: only
	// for the workspace's own snapshot, under its lock.
	StatusStatCache bool
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
		return &Repo{GitDir: r.GitDir, CommonDir: r.CommonDir, WorkTree: r.WorkTree, ObjectFormat: r.ObjectFormat}, nil
	}
	memo.Unlock()
	r, err := discover(ctx, dir)
	if err == nil {
		memo.Lock()
		memo.key, memo.at = key, time.Now()
		memo.repo = Repo{GitDir: r.GitDir, CommonDir: r.CommonDir, WorkTree: r.WorkTree, ObjectFormat: r.ObjectFormat}
		memo.Unlock()
	}
	return r, err
}

var memo struct {
	sync.Mutex
	key  string
	at   time.Time
	repo Repo
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
	r := &Repo{
		GitDir:       filepath.Clean(lines[0]),
		CommonDir:    filepath.Clean(lines[1]),
		ObjectFormat: lines[2],
		WorkTree:     filepath.Clean(lines[4]),
	}
	return r, nil
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

// ZeroID is the all-zero object id in this repository's hash format.
func (r *Repo) ZeroID() string {
	if r.ObjectFormat == "sha256" {
		return strings.Repeat("0", 64)
	}
	return strings.Repeat("0", 40)
}

// EmptyTree is the id of the empty tree in this repository's hash format.
func (r *Repo) EmptyTree() string {
	if r.ObjectFormat == "sha256" {
		return "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
	}
	return "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
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

func (r *Repo) validID(id string) bool {
	n := 40
	if r.ObjectFormat == "sha256" {
		n = 64
	}
	if len(id) != n {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ValidID reports whether id is a full object id in this repository's
// format (40 or 64 lowercase hex digits): a value safe to hand to git as
// an object, never read as a revision expression or an option.
func (r *Repo) ValidID(id string) bool { return r.validID(id) }

func samePath(a, b string) bool {
	if a == b {
		return true
	}
	ea, err1 := filepath.EvalSymlinks(a)
	eb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ea == eb
}

func (r *Repo) hashLen() int {
	if r.ObjectFormat == "sha256" {
		return 32
	}
	return 20
}
