package nudgecmd

import (
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/opcmd"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// mutating are the commands recorded in the operation log.
var mutating = map[string]bool{"snapshot": true, "start": true, "run": true, "capture": true, "apply": true, "undo": true, "save": true, "drop": true,
	"queue": true, "work": true, "validate": true, "prune": true}

// long are the commands that can run for minutes (a task's command, the
// queue, validation commands): they hold no log lock while they run, so
// other commands are recorded meanwhile, and op undo refuses them whole.
var long = map[string]bool{"run": true, "start": true, "work": true, "validate": true}

// record runs a git-nudge command, recording it in the operation log when
// it changes something.
func record(env *cli.Env, command string, args []string, run func() error) error {
	if command == "pool" {
		// pool fill and pool clear change only .nudgethis/pool (no ref,
		// no journal, no work-tree file): recorded, with nothing to undo,
		// so that the log says they ran; pool list reads only.
		if p := opcmd.Positionals(args); len(p) == 0 || (p[0] != "fill" && p[0] != "clear") {
			return run()
		}
	} else if !mutating[command] || (command == "prune" && opcmd.HasFlag(args, "--dry-run")) {
		return run()
	}
	autoPrune(env, command, args) // nudge.retention, at most daily (autoprune.go)
	ws, err := nudge.OpenReadOnly(env.Ctx, env.Dir, env.Now)
	if err != nil {
		return run() // the command reports it
	}
	// Apply and undo tell the recording which files they change, and what
	// those hold, once they have checked them (ApplyCmd, UndoCmd).
	plan := opcmd.Plan{Repo: ws.Repo, Long: long[command],
		Spec: oplog.Spec{Tool: "nudge", Kind: command, Args: args, FilesHinted: command == "apply" || command == "undo"}}
	return opcmd.Around(env, plan, run)
}

func init() {
	opcmd.SetOpener(func(env *cli.Env) (*oplog.Repo, error) {
		ws, err := nudge.OpenReadOnly(env.Ctx, env.Dir, env.Now)
		if err != nil {
			return nil, err
		}
		return ws.Repo, nil
	})
}
