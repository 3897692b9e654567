package nudgecmd

import (
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge/retire"
)

// DuCmd is `git nudge du`.
type DuCmd struct {
	Top  int  `default:"5" help:"How many of the largest tasks to list."`
	JSON bool `name:"json" help:"Print {kinds: [{kind, count, unit, bytes}], largest: [{id, bytes}], total_bytes} as one JSON document."`
}

// Help is the long help.
func (c *DuCmd) Help() string {
	return `Shows what git nudge holds on disk, by kind: the task refs (snapshots, results, setup, validation, undo bytes, quarantined refs) with the bytes of the objects only they keep (what git gc could reclaim once those tasks are dropped and the operation log no longer holds them), the task records, logs, pooled and task worktrees, stage and sandbox folders, and the operation log (the bytes only it keeps); then the tasks that keep the most. git nudge prune drops old tasks.`
}

// Run measures and prints.
func (c *DuCmd) Run(env *cli.Env) error {
	w, err := readWorkspace(env)
	if err != nil {
		return err
	}
	u, err := retire.DiskUsage(env.Ctx, w, c.Top)
	if err != nil {
		return err
	}
	if c.JSON {
		return env.JSON(u)
	}
	env.Printf("%s", u.Text("Largest tasks (bytes only they keep):"))
	return nil
}
