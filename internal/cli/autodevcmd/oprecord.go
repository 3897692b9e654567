package autodevcmd

import (
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/opcmd"
	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// record runs a git-autodev command, recording it in the operation log
// when it changes something (checkpoint, restore of an id or --rebuild,
// park, run).
func record(env *cli.Env, command string, args []string, run func() error) error {
	switch command {
	case "checkpoint", "park", "run":
	case "restore":
		rebuild := false
		for _, a := range args {
			if a == "--rebuild" {
				rebuild = true
			}
		}
		if len(opcmd.Positionals(args)) == 0 && !rebuild {
			return run() // the list: read-only
		}
	default:
		return run()
	}
	r, err := git.Discover(env.Ctx, env.Dir)
	if err != nil {
		return run() // the command reports it
	}
	plan := opcmd.Plan{Repo: r, Long: command == "run",
		Spec: oplog.Spec{Tool: "autodev", Kind: command, Args: args, Status: command == "restore"}}
	return opcmd.Around(env, plan, run)
}
