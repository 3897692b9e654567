package nudgecmd

import (
	"errors"
	"os"
	"strings"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge"
)

// refusal shows the workflow's refusals as the command line's own (exit 1,
// every reason listed): a refusal wrapped on its way up is shown by itself,
// a snapshot over the untracked-file limit as a refusal to take it. Other
// errors pass through.
func refusal(err error) error {
	var tm *nudge.TooManyUntrackedError
	if errors.As(err, &tm) {
		return &cli.Refusal{What: "cannot take a snapshot", Reasons: []string{tm.Error()}}
	}
	var r *cli.Refusal
	if errors.As(err, &r) {
		return r
	}
	return err
}

// openWorkspace finds the workspace the command was started in (the one
// that owns the task, in a task worktree) and prepares its state folder.
func openWorkspace(env *cli.Env) (*nudge.Workspace, error) {
	return inTaskNote(env)(nudge.Open(env.Ctx, env.Dir, env.Now))
}

// readWorkspace is openWorkspace for commands that only read: it creates
// no file or folder.
func readWorkspace(env *cli.Env) (*nudge.Workspace, error) {
	return inTaskNote(env)(nudge.OpenReadOnly(env.Ctx, env.Dir, env.Now))
}

// inTaskNote says on stderr which workspace a command started in a task
// worktree acts on.
func inTaskNote(env *cli.Env) func(*nudge.Workspace, error) (*nudge.Workspace, error) {
	return func(w *nudge.Workspace, err error) (*nudge.Workspace, error) {
		if w != nil {
			w.Warn = env.Stderr
		}
		if err == nil && w.InTask != "" {
			env.Warnf("git nudge: this is task %s's worktree; acting on the workspace that owns it, %s\n",
				w.InTask, nudge.QuotePath(w.Repo.WorkTree))
		}
		return w, err
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// branchLabel is a task's branch for people.
func branchLabel(b *string) string {
	if b == nil {
		return "(detached HEAD)"
	}
	return strings.TrimPrefix(*b, "refs/heads/")
}
