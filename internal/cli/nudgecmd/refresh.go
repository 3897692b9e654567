package nudgecmd

import (
	"fmt"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge/apply"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// RefreshCmd is `git nudge refresh ID [--json]`.
type RefreshCmd struct {
	ID   string `arg:"" predictor:"task" help:"Ready or undone task whose change to bring onto the workspace as it is now."`
	JSON bool   `name:"json" help:"Print {old, task, conflicts} as one JSON document (the new task's full record as task)."`
}

// Help is the long help of refresh.
func (c *RefreshCmd) Help() string {
	return `Makes a new task from a snapshot of the workspace as it is now, whose result is the old task's change merged onto it: for each path of the old task's patch, a path you did not touch since the old snapshot takes the result's version as it is; a path you edited is merged three-way with git merge-file (base: the old snapshot's version, ours: the new snapshot's, theirs: the old result's). This replaces taking a new snapshot and running the task again when its work is still wanted.

When every path merges, the new task is ready with the merged result: review it with git nudge diff NEW and apply it with git nudge apply NEW. When a path does not merge (both changed the same lines, the task deletes or creates a file you changed, a binary file, a symlink or submodule changed on both sides), the new task is failed and each such path is named with the line ranges of your version that clash; the exit status is then 1. Either way the old task and the work tree are left as they were.`
}

// Operation declares the command for the operation log (opcmd.Recorded).
func (c *RefreshCmd) Operation() (oplog.Spec, bool) {
	return oplog.Spec{Kind: "refresh", Scope: oplog.ScopeTasks, LeavesIndex: true}, true
}

// Run refreshes the task.
func (c *RefreshCmd) Run(env *cli.Env) error {
	ws, err := openWorkspace(env)
	if err != nil {
		return err
	}
	res, err := apply.Refresh(env.Ctx, ws, c.ID)
	if err != nil {
		return refusal(err)
	}
	t := res.Task
	failed := len(res.Conflicts) > 0
	if c.JSON {
		if err := env.JSON(res); err != nil {
			return err
		}
		if failed {
			return &cli.ExitError{Code: 1}
		}
		return nil
	}
	if !failed {
		env.Printf("Refreshed %s as %s: its change merged onto the workspace as it is now, %s changed.\n", res.Old, env.Paint("1", t.ID), countFiles(len(t.Files)))
		env.Printf("%s is ready and %s is unchanged. Review with git nudge diff %s, then git nudge apply %s.\n", t.ID, res.Old, t.ID, t.ID)
		return nil
	}
	reasons := make([]string, len(res.Conflicts))
	for i, cf := range res.Conflicts {
		reasons[i] = cf.String()
	}
	return &cli.Refusal{
		What:    fmt.Sprintf("refreshed %s as %s, which failed: %s of its change could not be merged", res.Old, t.ID, countPaths(len(res.Conflicts))),
		Reasons: reasons,
		Next: fmt.Sprintf("Nothing in your work tree changed and %s is unchanged. See the task's change with git nudge diff %s and make those edits by hand, or change the clashing lines and run git nudge refresh %s again; git nudge drop %s removes the failed task.",
			res.Old, res.Old, res.Old, t.ID),
	}
}

func countPaths(n int) string {
	if n == 1 {
		return "1 path"
	}
	return fmt.Sprintf("%d paths", n)
}
