package nudge

import (
	"context"
	"io/fs"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/testutil/testrepo"
)

// Test helpers: repositories in temp folders (testrepo: commits made with
// git plumbing, the work tree read back by an independent reader) and
// ready task records written directly (the snapshot and capture workflows
// are not needed to test what follows them). The code under test runs git
// only through internal/git.

type repo struct {
	*testrepo.Repo
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
	g := testrepo.NewInit(t, initArgs, config...)
	return &repo{Repo: g, t: t, dir: g.Dir}
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
	return r.GitIn(stdin, env, args...)
}
func (r *repo) git(args ...string) string                 { return r.Git(args...) }
func (r *repo) write(p, content string, mode fs.FileMode) { r.Write(p, content, mode) }
func (r *repo) commitAll(msg string) string               { return r.CommitAll(msg) }

// diffFiles lists the patch from a to b like the capture workflow records it.
func (r *repo) diffFiles(a, b string) []FileChange {
	var files []FileChange
	for _, c := range r.DiffRaw(a, b) {
		files = append(files, FileChange(c))
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
	return r, r.CommitBase()
}
