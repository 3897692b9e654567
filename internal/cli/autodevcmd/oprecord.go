package autodevcmd

import (
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/opcmd"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// A command that changes something declares what it is with an Operation
// method (opcmd.Recorded, next to its Run); the recorder reads it.

// record runs a git-autodev command, recording it in the operation log
// when it declares itself (opcmd.Recorded).
var recordOp = opcmd.Recorder("autodev", func(env *cli.Env) (*oplog.Repo, error) {
	return oplog.Discover(env.Ctx, env.Dir)
})

// record is recordOp after the automatic pruning (autodev.retention, at
// most daily: prune.go) that a recorded command other than prune
// triggers, as its own operation before the command's.
func record(env *cli.Env, cmd any, args []string, run func() error) error {
	if rc, ok := cmd.(opcmd.Recorded); ok {
		if spec, ok := rc.Operation(); ok && spec.Kind != "prune" {
			autoPrune(env, spec.Kind, args)
		}
	}
	return recordOp(env, cmd, args, run)
}

// opOpener is git autodev op's repository. Outside a repository (or
// without a work tree) op says what every other git autodev command says,
// and exits 0.
func opOpener(env *cli.Env, asJSON bool) (*oplog.Repo, error) {
	ws, err := open(env, asJSON)
	if ws == nil {
		return nil, err
	}
	return oplog.Discover(env.Ctx, env.Dir)
}
