package nudgecmd

import (
	"github.com/nudgethis/git-nudge/internal/cli"
)

// DropCmd is `git nudge drop`.
type DropCmd struct {
	ID    string `arg:"" help:"Task to remove."`
	Force bool   `help:"Also drop an applied or Recovery required task (its files stay in your work tree as they are), or one whose worktree holds uncaptured changes (they are deleted)."`
	JSON  bool   `name:"json" help:"Print {id, dropped} as one JSON document."`
}

// Help is the long help.
func (c *DropCmd) Help() string {
	return `Removes a task: its worktree, its snapshot and result refs, its logs and its record; a pending task (git nudge queue) is removed from the queue. Refused while it is applying or undoing, when it is applied (undo or save it first), when it needs recovery, and when its worktree holds changes made after the last capture (git nudge capture records them). --force drops anyway: an applied or Recovery required task's files in your work tree are not touched, but the task can no longer be undone; uncaptured changes in the task's worktree are deleted with it.`
}

// Run drops the task.
func (c *DropCmd) Run(env *cli.Env) error {
	w, err := openWorkspace(env)
	if err != nil {
		return err
	}
	if err := w.Drop(env.Ctx, c.ID, c.Force); err != nil {
		return refusal(err)
	}
	if c.JSON {
		return env.JSON(map[string]any{"id": c.ID, "dropped": true})
	}
	env.Printf("Dropped %s.\n", c.ID)
	return nil
}
