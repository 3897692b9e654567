package autodevcmd

import (
	"github.com/nudgethis/git-nudge/internal/agenthooks"
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/opcmd"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// record runs a git-autodev command, recording it in the operation log
// when it changes something (checkpoint, restore of an id or --rebuild,
// park, run, squash).
func record(env *cli.Env, command string, args []string, run func() error) error {
	var paths []string
	switch command {
	case "checkpoint", "park", "run", "hook", "squash", "prune":
		if command == "prune" && hasFlag(args, "--dry-run") {
			return run()
		}
	case "hooks":
		// The agent's project settings file is the one file it edits;
		// codex's lives in the home folder and is never edited.
		pos := opcmd.Positionals(args)
		if len(pos) < 2 || hasFlag(args, "--dry-run") {
			return run()
		}
		a, ok := agenthooks.Find(pos[1])
		if !ok || a.File == "" {
			return run()
		}
		paths = []string{a.File}
	case "restore":
		if len(opcmd.Positionals(args)) == 0 && !hasFlag(args, "--rebuild") {
			return run() // the list: read-only
		}
	case "op":
		// Outside a repository (or without a work tree) op says what
		// every other git autodev command says, and exits 0.
		ws, err := open(env, hasFlag(args, "--json"))
		if ws == nil {
			return err
		}
		return run()
	default:
		return run()
	}
	if command != "prune" {
		autoPrune(env, command, args) // autodev.retention, at most daily (prune.go)
	}
	r, err := oplog.Discover(env.Ctx, env.Dir)
	if err != nil {
		return run() // the command reports it
	}
	// An agent's hook runs on every turn: it is recorded only when it
	// changed something (made a checkpoint); recording costs no git
	// process (see docs/DECISIONS.md).
	plan := opcmd.Plan{Repo: r, Long: command == "run",
		Spec: oplog.Spec{Tool: "autodev", Kind: command, Args: args, Status: command == "restore", Hinted: command == "restore" && !hasFlag(args, "--rebuild"), Paths: paths, DropEmpty: command == "hook"}}
	return opcmd.Around(env, plan, run)
}

func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == flag {
			return true
		}
	}
	return false
}
