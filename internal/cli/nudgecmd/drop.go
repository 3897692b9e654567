package nudgecmd

import (
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge/retire"
	"github.com/nudgethis/git-nudge/internal/operation"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// DropCmd is `git nudge drop`.
type DropCmd struct {
	IDs   []string `arg:"" predictor:"task" name:"id" help:"Tasks to remove (one or more)."`
	Force bool     `help:"Also drop an applied or Recovery required task (its files stay in your work tree as they are), or one whose worktree holds uncaptured changes (they are deleted)."`
	JSON  bool     `name:"json" help:"Print {id, dropped} as one JSON document; for several ids, one array of them."`
}

// Help is the long help.
func (c *DropCmd) Help() string {
	return `Removes a task: its worktree, its snapshot and result refs, its logs and its record; a pending task (git nudge queue) is removed from the queue. A task running on a runner (git nudge run --on NAME) is stopped first: its runner's command is sent SIGTERM, which ends the work there (the container is removed; over ssh the command's session there is ended and its worktree given back), and once the run has recorded its end the task is dropped; a task running on this machine is refused (stop it with Ctrl-C). Refused while it is applying or undoing, when it is applied (undo or save it first), when it needs recovery, and when its worktree holds changes made after the last capture (git nudge capture records them). --force drops anyway: an applied or Recovery required task's files in your work tree are not touched, but the task can no longer be undone; uncaptured changes in the task's worktree are deleted with it. Several ids are dropped together or not at all: when one is refused or unknown, nothing is dropped and every reason is given.`
}

// Operation declares the command for the operation log (opcmd.Recorded).
func (c *DropCmd) Operation() (oplog.Spec, bool) {
	return operation.Shared("nudge", "drop")
}

// Run drops the tasks.
func (c *DropCmd) Run(env *cli.Env) error {
	w, err := openWorkspace(env)
	if err != nil {
		return err
	}
	ids, err := retire.DropAll(env.Ctx, w, c.IDs, c.Force)
	if err != nil {
		return refusal(err)
	}
	dropped := make([]map[string]any, len(ids))
	for i, id := range ids {
		dropped[i] = map[string]any{"id": id, "dropped": true}
	}
	switch {
	case c.JSON && len(c.IDs) == 1:
		return env.JSON(dropped[0])
	case c.JSON:
		return env.JSON(dropped)
	}
	for _, d := range dropped {
		env.Printf("Dropped %s.\n", d["id"])
	}
	return nil
}
