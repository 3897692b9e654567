// Package autodevcmd is git-autodev's command line: one kong struct per
// command, each a thin layer over internal/autodev.
package autodevcmd

import (
	"github.com/alecthomas/kong"

	"github.com/nudgethis/git-nudge/internal/cli"
)

// CLI is the git-autodev command line.
type CLI struct {
	Version kong.VersionFlag `help:"Print the version and exit."`

	Completion cli.CompletionCmd `cmd:"" hidden:"" help:"Print a shell completion script."`
}

// Program is git-autodev as the shared runner sees it.
func Program() cli.Program {
	return cli.Program{
		Name: "git-autodev",
		Description: `Checkpoint an unattended run on the current branch, and rewind to any checkpoint without losing work.

git autodev commits checkpoints authored by autodev <autodev@localhost> with hooks skipped, keeps a journal of them in .autodev/checkpoints.json, and restores one by first parking any uncommitted work on a branch, then resetting the tree.`,
		Model: &CLI{},
	}
}

// Main runs git-autodev with args and returns the exit status.
func Main(args []string, env *cli.Env) int { return Program().Main(args, env) }
