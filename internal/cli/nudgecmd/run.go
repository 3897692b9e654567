package nudgecmd

import (
	"errors"
	"fmt"
	"strings"

	"os"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/runner"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// RunCmd is `git nudge run`.
type RunCmd struct {
	Task         string   `name:"task" placeholder:"ID" help:"Task to run in (default: take a new snapshot and start a task)."`
	NoSetup      bool     `name:"no-setup" help:"Do not run the git config nudge.setup commands when a worktree is made."`
	Message      string   `short:"m" name:"message" placeholder:"NOTE" help:"Note for the snapshot taken when no task is given."`
	Sandbox      bool     `name:"sandbox" xor:"sandbox" help:"Run CMD confined under bubblewrap (Landlock where it cannot run, unless git config nudge.sandbox is strict): it may write only in its worktree, that worktree's git folder, a private object folder (imported when captured), a private TMPDIR and the git config nudge.sandbox.allowWrite paths. Default: git config nudge.sandbox."`
	NoSandbox    bool     `name:"no-sandbox" xor:"sandbox" help:"Run CMD unconfined even when git config nudge.sandbox is true."`
	KeepWorktree bool     `name:"keep-worktree" help:"Keep the task's worktree once it is finished (default: when it holds nothing uncaptured and no process uses it, it goes back to the pool, or is removed; git nudge start ID brings one back at the result; git config nudge.keepWorktrees)."`
	KeepRefs     bool     `name:"keep-refs" help:"Keep the refs an unsandboxed CMD made, moved or deleted outside its own (branches, tags, the stash, notes, replace refs) as it left them; they are still listed. Default: move them aside under refs/nudgethis/quarantine/<id>/ and put back the old ones."`
	NoValidate   bool     `name:"no-validate" help:"Do not run the git config nudge.validate commands after the capture (recorded as skipped)."`
	Attempts     int      `name:"attempts" placeholder:"N" help:"Start N tasks from one snapshot, all at once, each running CMD with NUDGE_ATTEMPT set to its number (1..N); their output goes to their run logs. Compare them with git nudge compare."`
	On           string   `name:"on" placeholder:"NAME" help:"Run CMD on runner NAME, configured in git config nudge.runner.NAME.* (a container, an ssh host, or a command of your own; see docs/RUNNERS.md). Default: git config nudge.runner, else this machine (local)."`
	Command      []string `arg:"" passthrough:"partial" placeholder:"-- CMD [ARG...]" help:"The command to run in the task's worktree, after --."`
}

// Help is the long help.
func (c *RunCmd) Help() string {
	return `Runs CMD in a task's worktree (taking a snapshot and starting a task first when --task is not given), its output shown as it comes and kept in .nudgethis/logs/<id>/run.log (the last 1 MiB, with a first line saying how much was cut). Then the worktree is captured as the task's result, whatever CMD's exit status: the task becomes ready when CMD succeeded and failed otherwise, and either way git nudge diff shows what it changed. Exits with CMD's exit status. Interrupt and terminate signals are passed on to CMD. CMD sees NUDGE_TASK and NUDGE_WORKSPACE in its environment, and NUDGE_REVIEW, the path of a file holding the task's review comments, when it has any (see git nudge comment).

A finished task keeps its result, not a checkout: when the worktree then holds nothing the result does not (ignored files such as build output and dependency folders do not count) and no process uses it, it goes back to the worktree pool, or is removed when the pool is full. git nudge start ID (or run --task ID) brings one back at the result. --keep-worktree, or git config nudge.keepWorktrees true, keeps it.

With --attempts N, one snapshot is taken and N tasks are made from it; CMD runs in all of them at once (on the runner --on names, if any), each with NUDGE_ATTEMPT set to its number, its output kept in its run log only. Each attempt's outcome is printed when all have ended; git nudge compare ID... sets their results side by side, and applying one leaves the others reviewable. Exits 0 when every attempt's command succeeded, 1 otherwise.

After the capture, when the command succeeded, each git config nudge.validate command runs with sh -c in the worktree (the task is "validating" meanwhile); see git nudge validate. --no-validate skips them.

CMD starts in the worktree's folder that matches the current directory (run from src/, it starts in <worktree>/src), or in the nearest folder above it that the worktree has. CMD inherits the task's lock: while CMD, or anything it started, still runs after git nudge run itself was killed, the task stays running (git nudge list names the pids) and drop, start, capture and run refuse.

Without the sandbox, CMD shares the repository's refs: every ref it made, moved or deleted outside git nudge's own (a branch, a tag, the stash, notes, replace refs) is listed when it ends and moved aside: made refs to refs/nudgethis/quarantine/<id>/<ref>, moved ones put back with the task's value kept there, deleted ones made again (git nudge show ID lists them; --keep-refs keeps the task's refs in place). A branch that a worktree of yours (not a task's) moved by a commit there, as its own HEAD log says, is kept as yours.

With --sandbox (or git config nudge.sandbox true or strict), CMD runs under bubblewrap in namespaces of its own: the file system is read-only to it, metadata included, except its worktree, that worktree's git folder (.git/worktrees/<id>), a private object folder (git there reads the repository's objects and writes new ones aside; they are imported, each checked by git, when the result is captured), a private TMPDIR and each git config nudge.sandbox.allowWrite path (absolute or ~/, existing); the workspace's .nudgethis folder, /tmp and /run are empty to it; it has no network (git config nudge.sandbox.network host gives it the host's), its own PID namespace (nothing it started outlives it), a new session, no setuid or setgid bits, and at most git config nudge.sandbox.maxProcs processes (default 1024). Reads are not restricted. Where bubblewrap cannot run, the run falls back to Linux Landlock (writes only confined) and says what that leaves open, or, with nudge.sandbox strict, is refused; with neither, the run is refused and nothing runs. A task run without the sandbox is as trusted as the user.

With --on NAME (or git config nudge.runner NAME) CMD runs on a runner instead of here: a container runner (git config nudge.runner.NAME.type container, .image, .engine podman or docker, .network (default none), .cpus, .memory) runs it in a container of that image with the worktree mounted at the same path and the user's uid, at most nudge.sandbox.maxProcs processes; an ssh runner (.type ssh, .host, .path) sends the base into a cache repository on the host with git push and runs CMD in a worktree there; a command runner (.type command, .command) is a shell command of yours that gets the snapshot as a git bundle and gives back the result as one (the protocol is in docs/RUNNERS.md). What comes back is checked and captured like any result. --on local runs here whatever git config says.`
}

// sandboxFlag is --sandbox / --no-sandbox, nil when neither was given.
func sandboxFlag(on, off bool) *bool {
	switch {
	case on:
		return &on
	case off:
		no := false
		return &no
	}
	return nil
}

// Operation declares the command for the operation log (opcmd.Recorded):
// long, as the task's command runs.
func (c *RunCmd) Operation() (oplog.Spec, bool) {
	return oplog.Spec{Kind: "run", Scope: oplog.ScopeTasks, Long: true, LeavesIndex: true}, true
}

// Run runs the command.
func (c *RunCmd) Run(env *cli.Env) error {
	argv := c.Command
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		return cli.UsageError(errNoCommand)
	}
	w, err := openWorkspace(env)
	if err != nil {
		return err
	}
	fw := env.ForwardSignals()
	defer fw.Stop()
	if c.Attempts != 0 {
		return c.runAttempts(env, w, argv, fw.Signals)
	}
	t, code, err := runner.Run(env.Ctx, w, runner.RunOptions{
		TaskID: c.Task, NoSetup: c.NoSetup, Command: argv, Note: c.Message, Dir: env.Dir, Sandbox: sandboxFlag(c.Sandbox, c.NoSandbox),
		Environ: env.Environ(), Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr,
		Signals: fw.Signals, Group: fw.Group,
		Skip: fw.Skip, NoValidate: c.NoValidate, KeepRefs: c.KeepRefs, On: c.On, KeepWorktree: c.KeepWorktree,
	})
	if t != nil && t.Result != nil {
		if len(t.Files) == 0 {
			env.Warnf("git nudge: %s %s: 0 files changed, nothing to review\n", t.ID, nudge.StateLabel(t.State))
		} else {
			env.Warnf("git nudge: %s %s: %s changed; review with git nudge diff %s\n", t.ID, nudge.StateLabel(t.State), countFiles(len(t.Files)), t.ID)
		}
		warnLeftOut(env, t)
		if t.WorktreeReleased {
			env.Warnf("git nudge: %s's worktree was given back, its result kept (git nudge start %s brings one back at the result; --keep-worktree keeps it)\n", t.ID, t.ID)
		}
	}
	if t != nil {
		warnSetup(env, t)
		warnValidation(env, t)
	}
	if err != nil {
		var engine *runner.EngineError
		if code == 127 || errors.As(err, &engine) {
			return &cli.ExitError{Code: code, Err: err}
		}
		return refusal(err)
	}
	if code != 0 {
		return &cli.ExitError{Code: code}
	}
	return nil
}

// runAttempts is run --attempts.
func (c *RunCmd) runAttempts(env *cli.Env, w *nudge.Workspace, argv []string, signals <-chan os.Signal) error {
	if c.Task != "" {
		return cli.UsageError(fmt.Errorf("--attempts makes new tasks from one new snapshot: leave out --task"))
	}
	attempts, err := runner.RunAttempts(env.Ctx, w, runner.RunOptions{
		Command: argv, Note: c.Message, Dir: env.Dir, Sandbox: sandboxFlag(c.Sandbox, c.NoSandbox), NoSetup: c.NoSetup,
		Environ: env.Environ(), Signals: signals, NoValidate: c.NoValidate, KeepRefs: c.KeepRefs, On: c.On,
	}, c.Attempts, func(a runner.Attempt) {
		env.Warnf("git nudge: attempt %d: %s started\n", a.N, a.Task.ID)
	})
	if err != nil {
		return refusal(err)
	}
	ids := make([]string, 0, len(attempts))
	failed := false
	for _, a := range attempts {
		t := a.Task
		ids = append(ids, t.ID)
		line := fmt.Sprintf("git nudge: attempt %d: %s %s", a.N, t.ID, nudge.StateLabel(t.State))
		if t.ExitCode != nil {
			line += fmt.Sprintf(", exit status %d", *t.ExitCode)
		}
		if t.Result != nil {
			line += ", " + countFiles(len(t.Files)) + " changed"
		}
		if a.Err != nil {
			line += ": " + a.Err.Error()
		}
		if a.Err != nil || t.State != nudge.StateReady {
			failed = true
		}
		env.Warnf("%s\n", line)
	}
	env.Warnf("git nudge: compare them with git nudge compare %s\n", strings.Join(ids, " "))
	if failed {
		return &cli.ExitError{Code: 1}
	}
	return nil
}
