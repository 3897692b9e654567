package apply

import (
	"context"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/testutil/testrepo"
)

// Test helpers for apply, undo and recover: repositories in temp folders
// (testrepo: commits made with git plumbing, the work tree read back by
// an independent reader) and ready task records written directly (the
// snapshot and capture workflows are not needed to test apply). The code
// under test runs git only through internal/git.

type repo struct {
	*testrepo.Repo
	ws *nudge.Workspace
}

func newRepo(t *testing.T, config ...string) *repo {
	t.Helper()
	return newRepoInit(t, []string{"init", "-q"}, config...)
}

// newRepoInit is newRepo with other git init arguments.
func newRepoInit(t *testing.T, initArgs []string, config ...string) *repo {
	t.Helper()
	r := &repo{Repo: testrepo.NewInit(t, initArgs, config...)}
	r.StateDir = nudge.StateDirName
	return r
}

func (r *repo) workspace() *nudge.Workspace {
	r.T.Helper()
	if r.ws == nil {
		ws, err := nudge.Open(context.Background(), r.Dir, func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) })
		if err != nil {
			r.T.Fatal(err)
		}
		r.ws = ws
	}
	return r.ws
}

// diffFiles lists the patch from a to b like the capture workflow records it.
func (r *repo) diffFiles(a, b string) []nudge.FileChange {
	var files []nudge.FileChange
	for _, c := range r.DiffRaw(a, b) {
		files = append(files, nudge.FileChange(c))
	}
	return files
}

// mkTask writes a ready task id with the given snapshot and result, taken
// on the current HEAD.
func (r *repo) mkTask(id, snapshot, result string) *nudge.Task {
	r.T.Helper()
	ws := r.workspace()
	ctx := context.Background()
	head, err := ws.Repo.Head(ctx)
	if err != nil {
		r.T.Fatal(err)
	}
	r.Git("update-ref", refs.Snapshots+id, snapshot)
	r.Git("update-ref", refs.Results+id, result)
	t := &nudge.Task{ID: id, State: nudge.StateReady, Created: ws.Now(), Workspace: ws.Repo.WorkTree,
		Branch: nudge.OptStr(head.Branch), Head: nudge.OptStr(head.Commit), Snapshot: snapshot,
		Clean: snapshot == head.Commit, Result: nudge.StrPtr(result), Files: r.diffFiles(snapshot, result)}
	if err := ws.Save(t); err != nil {
		r.T.Fatal(err)
	}
	return t
}

func (r *repo) load(id string) *nudge.Task {
	r.T.Helper()
	t, err := r.workspace().Load(id)
	if err != nil {
		r.T.Fatal(err)
	}
	return t
}
