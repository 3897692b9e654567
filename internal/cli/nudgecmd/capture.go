package nudgecmd

import (
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/runner"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// CaptureCmd is `git nudge capture`.
type CaptureCmd struct {
	ID   string `arg:"" predictor:"task" help:"Task whose result to record."`
	From string `name:"from" placeholder:"REV" help:"Record the tree of REV instead of the task's worktree."`
	JSON bool   `name:"json" help:"Print the task record as one JSON document."`

	NoValidate   bool `name:"no-validate" help:"Do not run the git config nudge.validate commands on the new result (recorded as skipped)."`
	KeepWorktree bool `name:"keep-worktree" help:"Keep the task's worktree once its result is recorded (default: it goes back to the pool when it holds nothing uncaptured; git config nudge.keepWorktrees)."`
}

// Help is the long help.
func (c *CaptureCmd) Help() string {
	return `Records the task's worktree as it is now as the task's result, with the same rules as a snapshot (ignored files, dependency folders, large untracked files and protected paths left out), or with --from the tree of REV. The result is a commit whose parent is the snapshot, kept by refs/nudgethis/results/<id>. The task becomes ready. Then the git config nudge.validate commands, when there are any, check the new result in the worktree (not with --from, which leaves the worktree as it was; not with --no-validate); see git nudge validate.`
}

// Operation declares the command for the operation log (opcmd.Recorded).
func (c *CaptureCmd) Operation() (oplog.Spec, bool) {
	return oplog.Spec{Kind: "capture", Scope: oplog.ScopeTasks, LeavesIndex: true}, true
}

// Run records the result.
func (c *CaptureCmd) Run(env *cli.Env) error {
	w, err := openWorkspace(env)
	if err != nil {
		return err
	}
	t, err := w.Capture(env.Ctx, c.ID, c.From)
	if err != nil {
		return refusal(err)
	}
	if c.NoValidate || c.From == "" {
		if vt, verr := runner.Validate(env.Ctx, w, c.ID, runner.ValidateOptions{Skip: c.NoValidate, Environ: env.Environ(), Output: env.Stderr}); verr == nil {
			t = vt
		} else if !isNoValidation(verr) {
			return refusal(verr)
		}
	}
	if err := w.ReleaseWorktree(env.Ctx, c.ID, c.KeepWorktree, env.Stderr); err != nil {
		return err
	}
	if rt, err := w.Load(c.ID); err == nil {
		t = rt
	}
	if !c.JSON {
		defer warnValidation(env, t)
	}
	if c.JSON {
		return env.JSON(t)
	}
	env.Printf("%s %s: result %s, %s changed\n", env.Paint("1", t.ID), t.State, *t.Result, countFiles(len(t.Files)))
	for _, s := range t.ResultSkipped {
		env.Printf("  skipped %s  (%s)\n", displayPath(s.Path), s.Reason)
	}
	return nil
}

// warnLeftOut tells on stderr (run's stdout is the command's) what
// capturing t's result left out (protected paths, large files, dependency
// folders), so a change the task made there is not silently missing.
func warnLeftOut(env *cli.Env, t *nudge.Task) {
	if len(t.ResultSkipped) == 0 {
		return
	}
	for _, s := range t.ResultSkipped {
		env.Warnf("  skipped %s  (%s)\n", displayPath(s.Path), s.Reason)
	}
}
