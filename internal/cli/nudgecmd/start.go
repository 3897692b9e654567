package nudgecmd

import (
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/runner"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// StartCmd is `git nudge start`.
type StartCmd struct {
	ID      string `arg:"" predictor:"task" optional:"" help:"Task to start (default: take a new snapshot and start it)."`
	NoSetup bool   `name:"no-setup" help:"Do not run the git config nudge.setup commands."`
	Message string `short:"m" name:"message" placeholder:"NOTE" help:"Note for the snapshot taken when no ID is given."`
	JSON    bool   `name:"json" help:"Print the task record as one JSON document."`

	KeepWorktree bool `name:"keep-worktree" help:"Keep the task's worktree once it is finished (default: it goes back to the pool when it holds nothing uncaptured; git config nudge.keepWorktrees)."`
}

// Help is the long help.
func (c *StartCmd) Help() string {
	return `Gives a task a fresh linked worktree at .nudgethis/worktrees/<id>, detached at its snapshot commit (taking the snapshot first when no ID is given). Ignored files that the workspace's .worktreeinclude matches (gitignore syntax) are copied in, then each git config nudge.setup command runs with sh -c in the worktree, its output kept in .nudgethis/logs/<id>/setup.log. Setup commands come only from git config, never from files in the tree. Prints the worktree's path.

A finished task (ready or failed) whose worktree was given back (see git nudge run) gets one back, checked out at its result: HEAD at the snapshot, the task's changes in the files, not staged; taken from the pool when it has one. The setup commands do not run again (what they changed in tracked files is in the result).`
}

// Operation declares the command for the operation log (opcmd.Recorded):
// long, as setup commands run.
func (c *StartCmd) Operation() (oplog.Spec, bool) {
	return oplog.Spec{Kind: "start", Scope: oplog.ScopeTasks, Long: true, LeavesIndex: true}, true
}

// Run starts the task.
func (c *StartCmd) Run(env *cli.Env) error {
	w, err := openWorkspace(env)
	if err != nil {
		return err
	}
	o := startOptions(env, c.NoSetup, c.Message)
	o.KeepWorktree = c.KeepWorktree
	t, err := runner.Start(env.Ctx, w, c.ID, o)
	if err != nil {
		return refusal(err)
	}
	if c.JSON {
		return env.JSON(t)
	}
	warnSetup(env, t)
	env.Printf("%s\n", *t.Worktree)
	return nil
}

// warnSetup says which paths the setup commands changed: they are
// recorded apart from the task's work and never applied.
func warnSetup(env *cli.Env, t *nudge.Task) {
	if len(t.SetupFiles) == 0 {
		return
	}
	env.Warnf("git nudge: %s: setup (nudge.setup) changed %s; recorded apart from the task's work, not in its diff, never applied:\n", t.ID, countFiles(len(t.SetupFiles)))
	for i, f := range t.SetupFiles {
		if i == 10 {
			env.Warnf("  ... and %d more (git nudge show %s lists them)\n", len(t.SetupFiles)-10, t.ID)
			break
		}
		env.Warnf("  %s  %s\n", f.Status, displayPath(f.Path))
	}
}

func startOptions(env *cli.Env, noSetup bool, note string) runner.StartOptions {
	return runner.StartOptions{NoSetup: noSetup, Environ: env.Environ(), Output: env.Stderr, Note: note}
}
