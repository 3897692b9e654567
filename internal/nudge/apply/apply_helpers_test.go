package apply

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// Test helpers for apply, undo and recover: repositories in temp folders,
// commits made with git plumbing, and ready task records written directly
// (the snapshot and capture workflows are not needed to test apply).
// Tests run git themselves to set the scene and to check the outcome with
// an independent reader; the code under test runs git only through
// internal/git.

var hermetic sync.Once

// isolateGit isolates the test process from the developer's git setup
// (testutil.Isolate: fresh HOME, no system config, fixed identity and
// dates), once. A TestMain calling testutil.Main in this package would make
// it redundant, not wrong.
func isolateGit(t *testing.T) {
	hermetic.Do(func() {
		home, err := os.MkdirTemp("", "nudge-test-home-")
		if err == nil {
			err = testutil.Isolate(home)
		}
		if err != nil {
			panic(err)
		}
	})
}

type repo struct {
	t   *testing.T
	dir string
	ws  *nudge.Workspace
}

func newRepo(t *testing.T, config ...string) *repo {
	t.Helper()
	return newRepoInit(t, []string{"init", "-q"}, config...)
}

// newRepoInit is newRepo with other git init arguments.
func newRepoInit(t *testing.T, initArgs []string, config ...string) *repo {
	t.Helper()
	isolateGit(t)
	dir := t.TempDir()
	r := &repo{t: t, dir: dir}
	r.git(initArgs...)
	for i := 0; i+1 < len(config); i += 2 {
		r.git("config", config[i], config[i+1])
	}
	return r
}

func (r *repo) workspace() *nudge.Workspace {
	r.t.Helper()
	if r.ws == nil {
		ws, err := nudge.Open(context.Background(), r.dir, func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) })
		if err != nil {
			r.t.Fatal(err)
		}
		r.ws = ws
	}
	return r.ws
}

func (r *repo) gitIn(stdin []byte, env []string, args ...string) string {
	r.t.Helper()
	c := exec.Command("git", args...)
	c.Dir = r.dir
	c.Env = append(os.Environ(), env...)
	if stdin != nil {
		c.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		r.t.Fatalf("git %q: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}

func (r *repo) git(args ...string) string { return r.gitIn(nil, nil, args...) }

func (r *repo) rev(rev string) string { return strings.TrimSpace(r.git("rev-parse", "--verify", rev)) }

func (r *repo) write(p, content string, mode fs.FileMode) {
	r.t.Helper()
	full := filepath.Join(r.dir, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), mode); err != nil {
		r.t.Fatal(err)
	}
	if err := os.Chmod(full, mode); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repo) commitAll(msg string) string {
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return r.rev("HEAD")
}

// change is one path of a result commit: content and mode, or deleted.
type change struct {
	content string
	mode    string // "100644", "100755", "120000" (content = target), "160000" (content = commit id)
	deleted bool
}

func put(content string) change     { return change{content: content, mode: "100644"} }
func putExec(content string) change { return change{content: content, mode: "100755"} }
func del() change                   { return change{deleted: true} }

// commitOn makes a commit whose tree is base's with changes applied
// (content stored as is, no filters), with base as parent, without
// touching the work tree or the user's index.
func (r *repo) commitOn(base string, changes map[string]change) string {
	r.t.Helper()
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(r.t.TempDir(), "index")}
	if base != "" {
		r.gitIn(nil, env, "read-tree", base)
	}
	for p, c := range changes {
		if c.deleted {
			r.gitIn(nil, env, "update-index", "--force-remove", "--", p)
		}
	}
	for p, c := range changes {
		if c.deleted {
			continue
		}
		blob := c.content
		if c.mode != "160000" {
			blob = strings.TrimSpace(r.gitIn([]byte(c.content), nil, "hash-object", "-w", "--no-filters", "--stdin"))
		}
		r.gitIn(nil, env, "update-index", "--add", "--cacheinfo", c.mode+","+blob+","+p)
	}
	tree := strings.TrimSpace(r.gitIn(nil, env, "write-tree"))
	args := []string{"commit-tree", tree, "-m", "result"}
	if base != "" {
		args = append(args, "-p", base)
	}
	return strings.TrimSpace(r.git(args...))
}

// diffFiles lists the patch from a to b like the capture workflow records it.
func (r *repo) diffFiles(a, b string) []nudge.FileChange {
	out := r.git("diff-tree", "-r", "--no-renames", "-z", "--raw", a, b)
	var files []nudge.FileChange
	recs := strings.Split(out, "\x00")
	for i := 0; i+1 < len(recs); i += 2 {
		f := strings.Fields(strings.TrimPrefix(recs[i], ":"))
		if len(f) != 5 {
			break
		}
		fc := nudge.FileChange{Path: recs[i+1], Status: f[4][:1]}
		if f[0] != "000000" {
			fc.OldMode, fc.OldBlob = nudge.StrPtr(f[0]), nudge.StrPtr(f[2])
		}
		if f[1] != "000000" {
			fc.NewMode, fc.NewBlob = nudge.StrPtr(f[1]), nudge.StrPtr(f[3])
		}
		files = append(files, fc)
	}
	return files
}

// mkTask writes a ready task id with the given snapshot and result, taken
// on the current HEAD.
func (r *repo) mkTask(id, snapshot, result string) *nudge.Task {
	r.t.Helper()
	ws := r.workspace()
	ctx := context.Background()
	head, err := ws.Repo.Head(ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	r.git("update-ref", refs.Snapshots+id, snapshot)
	r.git("update-ref", refs.Results+id, result)
	t := &nudge.Task{ID: id, State: nudge.StateReady, Created: ws.Now(), Workspace: ws.Repo.WorkTree,
		Branch: nudge.OptStr(head.Branch), Head: nudge.OptStr(head.Commit), Snapshot: snapshot,
		Clean: snapshot == head.Commit, Result: nudge.StrPtr(result), Files: r.diffFiles(snapshot, result)}
	if err := ws.Save(t); err != nil {
		r.t.Fatal(err)
	}
	return t
}

func (r *repo) load(id string) *nudge.Task {
	r.t.Helper()
	t, err := r.workspace().Load(id)
	if err != nil {
		r.t.Fatal(err)
	}
	return t
}

// tree is every file of the work tree (outside .git and .nudgethis) with
// its bytes and permission bits, for "nothing changed" and exact
// round-trip checks.
func (r *repo) tree() map[string]string {
	r.t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(r.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(r.dir, p)
		if rel == ".git" || rel == nudge.StateDirName {
			return filepath.SkipDir
		}
		if rel == "." {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			m[rel] = "symlink -> " + target
		case d.IsDir():
			m[rel+"/"] = fmt.Sprintf("dir %o", info.Mode().Perm())
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[rel] = fmt.Sprintf("%o %x", info.Mode().Perm(), sha256.Sum256(b))
		}
		return nil
	})
	if err != nil {
		r.t.Fatal(err)
	}
	return m
}

// indexSig is the user's index: bytes, mode and modification time.
func (r *repo) indexSig() string {
	r.t.Helper()
	p := filepath.Join(r.dir, ".git", "index")
	st, err := os.Stat(p)
	if err != nil {
		return "no index"
	}
	b, _ := os.ReadFile(p)
	return fmt.Sprintf("%x %v %d", sha256.Sum256(b), st.Mode(), st.ModTime().UnixNano())
}

func diffTrees(a, b map[string]string) string {
	var out []string
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	for k := range keys {
		if a[k] != b[k] {
			out = append(out, fmt.Sprintf("%q: %q -> %q", k, a[k], b[k]))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// read returns a work-tree file's bytes and whether it is executable.
func (r *repo) read(p string) (string, bool) {
	r.t.Helper()
	full := filepath.Join(r.dir, p)
	b, err := os.ReadFile(full)
	if err != nil {
		r.t.Fatalf("reading %s: %v", p, err)
	}
	st, _ := os.Stat(full)
	return string(b), st.Mode()&0o100 != 0
}

func (r *repo) absent(p string) bool {
	_, err := os.Lstat(filepath.Join(r.dir, p))
	return os.IsNotExist(err)
}
