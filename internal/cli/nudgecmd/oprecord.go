package nudgecmd

import (
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/opcmd"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// A command that changes something declares what it is with an Operation
// method (opcmd.Recorded, next to its Run); the recorder reads it.

// record runs a git-nudge command, recording it in the operation log when
// it declares itself (opcmd.Recorded).
var record = opcmd.Recorder("nudge", logRepo)

// logRepo is the repository whose log records git-nudge's commands and
// op shows: the workspace's (the owning one, in a task worktree).
func logRepo(env *cli.Env) (*oplog.Repo, error) {
	ws, err := nudge.OpenReadOnly(env.Ctx, env.Dir, env.Now)
	if err != nil {
		return nil, err
	}
	return ws.Repo, nil
}

// opOpener is git nudge op's repository.
func opOpener(env *cli.Env, _ bool) (*oplog.Repo, error) { return logRepo(env) }
