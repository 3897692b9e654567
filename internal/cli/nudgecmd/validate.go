package nudgecmd

import (
	"errors"
	"fmt"
	"time"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/runner"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// ValidateCmd is `git nudge validate`.
type ValidateCmd struct {
	ID   string `arg:"" predictor:"task" help:"Task whose result to validate."`
	JSON bool   `name:"json" help:"Print the task record as one JSON document."`
}

// Help is the long help.
func (c *ValidateCmd) Help() string {
	return `Runs each git config nudge.validate command (git config --add nudge.validate 'go test ./...') with sh -c in the task's worktree, which must hold exactly the task's result, and records for each its exit status, duration and output (the last 1 MiB, in .nudgethis/logs/<id>/validate.log). The task is "validating" while they run and keeps its state afterwards; its validation is passed when every command exited 0, failed otherwise, and git nudge apply refuses a failed one unless --unvalidated. git nudge run and git nudge capture validate by themselves.

Each command may run for git config nudge.validateTimeout (a duration such as 90s or 10m; default 30m), then it and every process it started are stopped and it counts as failed. What the commands change in the worktree is not part of the result: such paths are listed in the record, kept in refs/nudgethis/validation/<id>, and put back to the result's version. A validation interrupted (the process killed) leaves the task failed, naming the phase.`
}

// Operation declares the command for the operation log (opcmd.Recorded):
// long, as the validation commands run.
func (c *ValidateCmd) Operation() (oplog.Spec, bool) {
	return oplog.Spec{Kind: "validate", Scope: oplog.ScopeTasks, Long: true, LeavesIndex: true}, true
}

// Run validates the task.
func (c *ValidateCmd) Run(env *cli.Env) error {
	w, err := openWorkspace(env)
	if err != nil {
		return err
	}
	fw := env.ForwardSignals()
	defer fw.Stop()
	t, err := runner.Validate(env.Ctx, w, c.ID, runner.ValidateOptions{Environ: env.Environ(), Output: env.Stderr, Signals: fw.Signals})
	if err != nil {
		return refusal(err)
	}
	if c.JSON {
		return env.JSON(t)
	}
	printValidation(env.Printf, t)
	if t.ValidationFailed() {
		return &cli.ExitError{Code: cli.ExitFailed}
	}
	return nil
}

// isNoValidation reports a refusal that only says there is nothing to
// validate (no command configured, no worktree): capture goes on quietly.
func isNoValidation(err error) bool {
	var re *nudge.RefusedError
	if !errors.As(err, &re) || len(re.Reasons) != 1 {
		return false
	}
	r := re.Reasons[0]
	return r == "no validation command is configured" || r == "it has no worktree to run the validation commands in"
}

// warnValidation tells on stderr how t's validation went.
func warnValidation(env *cli.Env, t *nudge.Task) {
	if t == nil || t.Validation == nil {
		return
	}
	printValidation(env.Warnf, t)
}

// printValidation writes t's validation outcome, a line per command.
func printValidation(out func(string, ...any), t *nudge.Task) {
	v := t.Validation
	if v == nil {
		out("%s: no validation (git config nudge.validate names no command)\n", t.ID)
		return
	}
	line := fmt.Sprintf("%s: validation %s", t.ID, v.State)
	if v.Reason != "" {
		line += " (" + v.Reason + ")"
	}
	out("%s\n", line)
	for _, c := range v.Commands {
		out("  %s  %s  %s\n", commandOutcome(c), (time.Duration(c.DurationMS) * time.Millisecond).String(), c.Command)
	}
	if len(v.Leftover) > 0 {
		out("  the validation commands changed %d path(s) in the worktree; put back to the result (kept in %s)\n", len(v.Leftover), nudge.ShortID(v.LeftoverCommit))
	}
	if v.Log != "" && v.State == nudge.ValidationFailed {
		out("  output: %s\n", v.Log)
	}
}

// commandOutcome is one validation command's outcome in a word or two.
func commandOutcome(c nudge.ValidationCommand) string {
	switch {
	case c.TimedOut:
		return "timed out"
	case c.ExitCode == nil:
		return "not run"
	case *c.ExitCode == 0:
		return "ok"
	}
	return fmt.Sprintf("exit %d", *c.ExitCode)
}
