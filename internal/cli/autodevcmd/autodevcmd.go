// Package autodevcmd is git-autodev's command line: one kong struct per
// command, each a thin layer over internal/autodev.
package autodevcmd

import (
	"errors"
	"fmt"
	"time"

	"github.com/alecthomas/kong"

	"github.com/nudgethis/git-nudge/internal/autodev"
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/dashboardcmd"
	"github.com/nudgethis/git-nudge/internal/cli/opcmd"
	"github.com/nudgethis/git-nudge/internal/proc"
)

// CLI is the git-autodev command line.
type CLI struct {
	Version kong.VersionFlag `help:"Print the version and exit."`

	Checkpoint CheckpointCmd    `cmd:"" help:"Commit the work tree as a checkpoint on the current branch."`
	Restore    RestoreCmd       `cmd:"" help:"List the checkpoints, or rewind the project to one."`
	Run        RunCmd           `cmd:"" help:"Run a command as an autodev run: baseline checkpoint, run state, exit status."`
	Squash     SquashCmd        `cmd:"" help:"Fold the checkpoints at the tip of the branch into one commit of yours, before a push."`
	Park       ParkCmd          `cmd:"" help:"Commit the whole work tree onto a new branch without touching anything else."`
	Status     StatusCmd        `cmd:"" help:"Show the run state and where HEAD is among the checkpoints."`
	Hook       HookCmd          `cmd:"" help:"Checkpoint an agent's turn; run by the agent's hook, never fails it."`
	Hooks      HooksCmd         `cmd:"" help:"Install or remove the checkpoint hook in an agent's settings."`
	Dashboard  dashboardcmd.Cmd `cmd:"" help:"Serve a local page to review tasks and restore checkpoints (opens the checkpoints)."`
	Du         DuCmd            `cmd:"" help:"Show what git autodev holds on disk, by kind, and the largest checkpoints."`
	Prune      PruneCmd         `cmd:"" help:"Drop old checkpoints no branch holds; op undo brings them back."`

	Op opcmd.Cmd `cmd:"" help:"The operation log: list, show and undo what this tool and its sibling did."`

	Completion cli.CompletionCmd `cmd:"" hidden:"" help:"Print a shell completion script."`
}

// Program is git-autodev as the shared runner sees it.
func Program() cli.Program {
	return cli.Program{
		Name: "git-autodev",
		Description: `Checkpoint an unattended run on the current branch, and rewind to any checkpoint without losing work.

git autodev commits checkpoints authored by autodev <autodev@localhost> with hooks skipped, keeps a journal of them in .autodev/checkpoints.json, and restores one by first parking any uncommitted work on a branch, then resetting the tree.`,
		Model: &CLI{},
		ManSections: []cli.ManSection{{Title: "Files", Text: `.autodev/ at the top of the work tree (ignored by git through its own .gitignore): checkpoints.json (the checkpoint journal), state.json (the run state), memory.md (RESTORE: lines), lock, run.lock.

Every checkpoint is pinned by refs/autodev/checkpoints/<id>; parked work lives on autodev/pre-restore-<time> and autodev/parked-<time> branches.`}},
		Around:   record,
		Bind:     []any{opcmd.Opener(opOpener)},
		SeeAlso:  []string{"git-nudge(1)", "git-reset(1)", "git-branch(1)"},
		ExitNote: "Outside a git repository, or in one without a work tree, every command says that checkpoints are disabled and exits 0 (run still runs its program and exits with its status), so that a hook never fails because of it. git autodev hook exits 0 on everything but a usage error.",
	}
}

// TestNowVar fixes the clock for tests (an RFC 3339 time); it is not meant
// for users.
const TestNowVar = "GIT_AUTODEV_TEST_NOW"

// Main runs git-autodev with args and returns the exit status.
func Main(args []string, env *cli.Env) int {
	if len(args) > 0 && args[0] == proc.ReapArg {
		// git autodev run re-executes itself as the reaper that runs the
		// command and ends whatever it left (never a user command).
		return proc.ReapMain(args[1:])
	}
	if env.Getenv != nil {
		if v := env.Getenv(TestNowVar); v != "" {
			if t, err := time.Parse(time.RFC3339, v); err == nil {
				env.Now = func() time.Time { return t }
			}
		}
	}
	return Program().Main(args, env)
}

// open finds the workspace. Outside a repository (or without a work tree)
// it prints the "checkpoints disabled" message, as text or as JSON, and
// returns a nil workspace: the command then ends with status 0.
func open(env *cli.Env, asJSON bool) (*autodev.Workspace, error) {
	ws, err := autodev.Open(env.Ctx, env.Dir, env.Now)
	if errors.Is(err, autodev.ErrNoRepository) || errors.Is(err, autodev.ErrNoWorkTree) {
		if asJSON {
			return nil, env.JSON(map[string]any{"repository": false, "message": err.Error()})
		}
		env.Printf("%s\n", err.Error())
		return nil, nil
	}
	if ws != nil {
		ws.Notify = func(msg string) { env.Warnf("git autodev: %s\n", msg) }
	}
	return ws, err
}

// optional turns an empty flag value into nil.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// entryLine is the one-line summary of an entry: id, mark, label, commit.
func entryLine(e autodev.Entry) string {
	return e.ID + " " + autodev.Mark(e.Type) + " " + e.Label + " (" + autodev.Short(e.Commit) + ")"
}

// exitQuiet prints msg on stderr as it is (no program name in front) and
// exits 1; with --json, msg is also the error document's message.
func exitQuiet(env *cli.Env, msg string) error {
	return &cli.ExitError{Code: cli.ExitFailed, Err: errors.New(msg), Plain: true}
}

// count is "1 checkpoint", "2 checkpoints".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// rebuildOffer follows "No checkpoints.json, but ": history holds n
// autodev checkpoints, and how to get the journal back (the list and
// status both say it).
func rebuildOffer(n int) string {
	holds := "holds " + count(n, "autodev checkpoint", "autodev checkpoints")
	them := "them"
	if n == 1 {
		them = "it"
	}
	return "history " + holds + ". Run git autodev restore --rebuild to rebuild the journal from " + them + " (and from the autodev/pre-restore-* branches)."
}
