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
var recordOp = opcmd.Recorder("nudge", logRepo)

// record is recordOp after the automatic pruning (nudge.retention, at
// most daily: autoprune.go) that a recorded command other than prune
// triggers, as its own operation before the command's.
func record(env *cli.Env, cmd any, args []string, run func() error) error {
	if kind, ok := recordedKind(cmd); ok && kind != "prune" {
		autoPrune(env, kind, args)
	}
	return recordOp(env, cmd, args, run)
}

// recordedKind is the kind a command declares for the operation log, and
// whether it is recorded at all (opcmd.Recorded).
func recordedKind(cmd any) (string, bool) {
	rc, ok := cmd.(opcmd.Recorded)
	if !ok {
		return "", false
	}
	spec, ok := rc.Operation()
	return spec.Kind, ok
}

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
