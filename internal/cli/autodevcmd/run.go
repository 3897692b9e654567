package autodevcmd

import (
	"errors"

	"github.com/nudgethis/git-nudge/internal/autodev"
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// RunCmd is `git autodev run`.
type RunCmd struct {
	Mode string   `placeholder:"MODE" help:"Run mode, recorded in state.json and on the baseline checkpoint."`
	Task string   `placeholder:"ID" help:"Task the run works on (current_task in state.json)."`
	Cmd  []string `arg:"" passthrough:"partial" help:"The command to run, after --, with its arguments."`
}

// Help is the long help.
func (c *RunCmd) Help() string {
	return `Holds .autodev/run.lock while CMD runs (so restore refuses meanwhile; CMD inherits the lock as descriptor 3, so it stays held while CMD lives even if git autodev run itself is killed), commits a baseline checkpoint first when the tree has uncommitted changes, and records the run in .autodev/state.json: running with its pid and mode, then idle when CMD exits 0 or error otherwise. CMD's stdin, stdout and stderr are the terminal's; SIGINT and SIGTERM are forwarded to it; git autodev run exits with CMD's status (128+N when signal N ended it). Outside a git repository CMD still runs, without checkpoints.`
}

// Operation declares the command for the operation log (opcmd.Recorded):
// long, as the program runs.
func (c *RunCmd) Operation() (oplog.Spec, bool) {
	return oplog.Spec{Kind: "run", Scope: oplog.ScopeAutodevRun, Long: true}, true
}

// Run runs the command.
func (c *RunCmd) Run(env *cli.Env) error {
	// Registered before anything else so that a signal arriving while CMD
	// runs reaches CMD and does not end this process first.
	fw := env.ForwardSignals()
	defer fw.Stop()
	args := c.Cmd
	if len(args) > 0 && args[0] == "--" {
		// kong keeps the "--" for a passthrough argument.
		args = args[1:]
	}
	if len(args) == 0 {
		return cli.UsageError(errors.New("no command given: git autodev run [--mode MODE] [--task ID] -- CMD [ARG...]"))
	}
	req := autodev.RunRequest{
		Args: args, Mode: optional(c.Mode), Task: optional(c.Task), Dir: env.Dir,
		Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr, Signals: fw.Signals, Skip: fw.Skip, Group: fw.Group,
		Notify: func(res autodev.CheckpointResult) {
			switch {
			case res.Outcome == autodev.Adopted:
				res.Recovered = res.Entry
			case res.Outcome == autodev.Committed:
				defer env.Warnf("git autodev: baseline checkpoint %s\n", entryLine(*res.Entry))
			}
			if res.Recovered != nil {
				env.Warnf("git autodev: recorded %s: an interrupted checkpoint had committed and pinned it but not written the journal\n", entryLine(*res.Recovered))
			}
		},
	}
	ws, err := autodev.Open(env.Ctx, env.Dir, env.Now)
	var code int
	switch {
	case errors.Is(err, autodev.ErrNoRepository) || errors.Is(err, autodev.ErrNoWorkTree):
		// CMD's stdout is its own: the note goes to stderr.
		env.Warnf("%s\n", err.Error())
		code, err = autodev.Exec(req)
	case err != nil:
		return err
	default:
		code, err = ws.Run(env.Ctx, req)
	}
	if err != nil || code != 0 {
		return &cli.ExitError{Code: max(code, boolInt(err != nil)), Err: err}
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
