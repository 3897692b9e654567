package nudge

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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
	ws  *Workspace
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

func (r *repo) workspace() *Workspace {
	r.t.Helper()
	if r.ws == nil {
		ws, err := Open(context.Background(), r.dir, func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) })
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

// diffFiles lists the patch from a to b like the capture workflow records it.
func (r *repo) diffFiles(a, b string) []FileChange {
	out := r.git("diff-tree", "-r", "--no-renames", "-z", "--raw", a, b)
	var files []FileChange
	recs := strings.Split(out, "\x00")
	for i := 0; i+1 < len(recs); i += 2 {
		f := strings.Fields(strings.TrimPrefix(recs[i], ":"))
		if len(f) != 5 {
			break
		}
		fc := FileChange{Path: recs[i+1], Status: f[4][:1]}
		if f[0] != "000000" {
			fc.OldMode, fc.OldBlob = StrPtr(f[0]), StrPtr(f[2])
		}
		if f[1] != "000000" {
			fc.NewMode, fc.NewBlob = StrPtr(f[1]), StrPtr(f[3])
		}
		files = append(files, fc)
	}
	return files
}

// mkTask writes a ready task id with the given snapshot and result, taken
// on the current HEAD.
func (r *repo) mkTask(id, snapshot, result string) *Task {
	r.t.Helper()
	ws := r.workspace()
	ctx := context.Background()
	head, err := ws.Repo.Head(ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	r.git("update-ref", refs.Snapshots+id, snapshot)
	r.git("update-ref", refs.Results+id, result)
	t := &Task{ID: id, State: StateReady, Created: ws.Now(), Workspace: ws.Repo.WorkTree,
		Branch: OptStr(head.Branch), Head: OptStr(head.Commit), Snapshot: snapshot,
		Clean: snapshot == head.Commit, Result: StrPtr(result), Files: r.diffFiles(snapshot, result)}
	if err := ws.Save(t); err != nil {
		r.t.Fatal(err)
	}
	return t
}

func (r *repo) load(id string) *Task {
	r.t.Helper()
	t, err := r.workspace().Load(id)
	if err != nil {
		r.t.Fatal(err)
	}
	return t
}

// baseRepo is a repository with a varied first commit, checked out.
func baseRepo(t *testing.T, config ...string) (*repo, string) {
	r := newRepo(t, config...)
	r.write("mod.txt", "one\ntwo\n", 0o644)
	r.write("gone/deep/del.txt", "to be deleted\n", 0o644)
	r.write("tool.sh", "#!/bin/sh\necho hi\n", 0o644)
	r.write("img.bin", "\x00\x01\x02\xff\xfe", 0o644)
	r.write("with space/ünï cödé.txt", "unicode\n", 0o644)
	r.write("-dash.txt", "dash\n", 0o644)
	r.write("nl\nname.txt", "newline name\n", 0o755)
	r.write("empty.txt", "", 0o644)
	r.write("unrelated.txt", "mine\n", 0o644)
	return r, r.commitAll("base")
}
