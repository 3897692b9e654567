package nudgecmd

import (
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge"
)

// collects are the commands that write objects (snapshots, results, the
// operation log's records): after them git collects as it would after
// its own commands (git gc --auto).
var collects = map[string]bool{"snapshot": true, "run": true, "capture": true, "drop": true, "work": true, "save": true}

// around runs a git-nudge command (recorded by record); then, after a
// command that declares an operation (opcmd.Recorded: one that changes
// something), with every lock of the suite released, it deletes the
// worktrees the command (or an interrupted one) moved into
// .nudgethis/trash, so that no other command waits on a long deletion,
// and after a command that wrote objects lets git collect them (git gc --auto: nothing when gc.auto's threshold is
// not reached, detached when it is).
func around(env *cli.Env, cmd any, args []string, run func() error) error {
	err := record(env, cmd, args, run)
	if kind, ok := recordedKind(cmd); ok {
		if ws, oerr := nudge.OpenReadOnly(env.Ctx, env.Dir, env.Now); oerr == nil {
			_ = ws.EmptyTrash()
			if collects[kind] {
				_ = ws.Repo.GCAuto(env.Ctx)
			}
		}
	}
	return err
}
