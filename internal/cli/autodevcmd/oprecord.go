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
var record = opcmd.Recorder("autodev", func(env *cli.Env) (*oplog.Repo, error) {
	return oplog.Discover(env.Ctx, env.Dir)
})

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
