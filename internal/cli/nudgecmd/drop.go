package nudgecmd

import (
	"github.com/nudgethis/git-nudge/internal/cli"
)

// DropCmd is `git nudge drop`.
type DropCmd struct {
	ID string `arg:"" help:"Task to remove."`
}

// Help is the long help.
func (c *DropCmd) Help() string {
	return `Removes a task: its worktree, its snapshot and result refs, its logs and its record. Refused while it is applying or undoing, when it is applied (undo or save it first) and when it needs recovery.`
}

// Run drops the task.
func (c *DropCmd) Run(env *cli.Env) error {
	w, err := openWorkspace(env)
	if err != nil {
		return err
	}
	if err := w.Drop(env.Ctx, c.ID); err != nil {
		return refusal(err)
	}
	env.Printf("Dropped %s.\n", c.ID)
	return nil
}
