package nudgecmd

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/runner"
	"github.com/nudgethis/git-nudge/internal/operation"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// QueueCmd is `git nudge queue`.
type QueueCmd struct {
	Message string   `short:"m" name:"message" placeholder:"NOTE" help:"Note for the task."`
	On      string   `name:"on" placeholder:"NAME" help:"Run it on runner NAME (git config nudge.runner.NAME.*; see docs/RUNNERS.md) when its turn comes. Default: git config nudge.runner, else this machine."`
	JSON    bool     `name:"json" help:"Print the task record as one JSON document."`
	Command []string `arg:"" passthrough:"partial" placeholder:"-- CMD [ARG...]" help:"The command the task will run, after --."`
}

// Help is the long help.
func (c *QueueCmd) Help() string {
	return `Records a pending task that will run CMD: no snapshot is taken yet. git nudge work (or the dashboard) runs the pending tasks in order; each gets its snapshot from the workspace as it is when it starts, then its worktree, setup, CMD, capture and validation, as with git nudge run. git nudge drop removes a pending task from the queue. The task's id is allocated now.`
}

// Operation declares the command for the operation log (opcmd.Recorded).
func (c *QueueCmd) Operation() (oplog.Spec, bool) {
	return operation.Shared("nudge", "queue")
}

// Run queues the task.
func (c *QueueCmd) Run(env *cli.Env) error {
	argv := c.Command
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		return cli.UsageError(fmt.Errorf("no command to queue: git nudge queue -- CMD [ARG...]"))
	}
	w, err := openWorkspace(env)
	if err != nil {
		return err
	}
	on, err := runner.RunnerName(env.Ctx, w, c.On)
	if err != nil {
		return err
	}
	if err := runner.CheckRunner(env.Ctx, w, on); err != nil {
		return refusal(err)
	}
	t, err := runner.Queue(env.Ctx, w, runner.QueueOptions{Note: c.Message, Command: argv, On: on})
	if err != nil {
		return refusal(err)
	}
	if c.JSON {
		return env.JSON(t)
	}
	env.Printf("%s pending: git nudge work runs it\n", t.ID)
	return nil
}

// WorkCmd is `git nudge work`.
type WorkCmd struct {
	Max        int  `name:"max" default:"1" placeholder:"N" help:"Run up to N pending tasks at once (default 1; with more, their output goes only to their logs)."`
	NoValidate bool `name:"no-validate" help:"Do not run the git config nudge.validate commands after each capture."`
	JSON       bool `name:"json" help:"Print what ran as one JSON document: {ran: [{id, state, exit_code, error}], interrupted, pending}."`
}

// Help is the long help.
func (c *WorkCmd) Help() string {
	return `Runs the workspace's pending tasks (git nudge queue), oldest first, in the foreground until none is left, tasks queued meanwhile included. Each is snapshotted from the workspace as it is when it starts, then given its worktree, set up, run, captured and validated, exactly as git nudge run does; its output is shown (with --max 1) and kept in its logs. A task whose command fails or cannot start ends failed with the reason, and the next one runs.

Only one process runs a workspace's pending tasks at a time: git nudge work holds .nudgethis/work.lock, with its version, while it runs; a second one is refused, and a git-nudge of another version changes nothing in the workspace until it ends.

Ctrl-C (or SIGTERM) stops the running tasks with everything they started (SIGTERM, then SIGKILL five seconds later): their results are captured and they end failed; the tasks not started stay pending for the next git nudge work. If git nudge work itself is killed, the task it was running becomes failed (interrupted) once its command is gone, and the rest stay pending.

Exits 0 when every task it ran ended ready, 1 otherwise, 130 when interrupted.`
}

// Operation declares the command for the operation log (opcmd.Recorded):
// long, as the queued commands run.
func (c *WorkCmd) Operation() (oplog.Spec, bool) {
	return oplog.Spec{Kind: "work", Scope: oplog.ScopeTasks, Long: true, LeavesIndex: true}, true
}

// Run runs the pending tasks.
func (c *WorkCmd) Run(env *cli.Env) error {
	if c.Max < 1 {
		return cli.UsageError(fmt.Errorf("--max %d: give at least 1", c.Max))
	}
	w, err := openWorkspace(env)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(env.Ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	report, err := runner.Work(ctx, w, runner.WorkOptions{
		Max: c.Max, Environ: env.Environ(), Stdout: env.Stdout, Stderr: env.Stderr, NoValidate: c.NoValidate,
		Events: func(e runner.WorkEvent) {
			switch e.Kind {
			case "start":
				env.Warnf("git nudge work: %s started\n", e.ID)
			case "skipped":
				env.Warnf("git nudge work: %s skipped: it is no longer pending (dropped)\n", e.ID)
			case "again":
				env.Warnf("git nudge work: %s did not start: the workspace lock stayed held while other tasks of this run went on; it is tried again\n", e.ID)
			case "done":
				if e.Task == nil {
					env.Warnf("git nudge work: %s: %s\n", e.ID, strings.TrimSpace(fmt.Sprint(e.Err)))
					return
				}
				line := fmt.Sprintf("git nudge work: %s %s", e.ID, stateWithValidation(e.Task))
				if e.Task.Error != nil {
					line += ": " + *e.Task.Error
				}
				env.Warnf("%s\n", line)
			}
		},
	})
	if err != nil && report == nil {
		return refusal(err)
	}
	if c.JSON {
		if jerr := env.JSON(report); jerr != nil {
			return jerr
		}
	} else {
		env.Printf("Ran %d task(s): %s; %d still pending.\n", len(report.Ran), outcomes(report.Ran), report.Pending)
	}
	if err != nil {
		return refusal(err)
	}
	if report.Interrupted {
		return &cli.ExitError{Code: 130}
	}
	for _, t := range report.Ran {
		if t.State != nudge.StateReady && t.State != "skipped" {
			return &cli.ExitError{Code: cli.ExitFailed}
		}
	}
	return nil
}

// outcomes counts the states tasks ended in: "2 ready, 1 failed" (ready
// always, then the others in the order first met).
func outcomes(tasks []runner.WorkedTask) string {
	counts := map[string]int{}
	order := []string{nudge.StateReady}
	for _, t := range tasks {
		if counts[t.State] == 0 && t.State != nudge.StateReady {
			order = append(order, t.State)
		}
		counts[t.State]++
	}
	parts := make([]string, len(order))
	for i, st := range order {
		label := nudge.StateLabel(st)
		if st == "" {
			// Its run ended before the task was taken (a lock, a journal).
			label = "not started"
		}
		parts[i] = fmt.Sprintf("%d %s", counts[st], label)
	}
	return strings.Join(parts, ", ")
}
