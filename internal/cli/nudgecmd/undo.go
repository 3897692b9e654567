package nudgecmd

import (
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/opcmd"
	"github.com/nudgethis/git-nudge/internal/nudge/apply"
	"github.com/nudgethis/git-nudge/internal/operation"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// UndoCmd is `git nudge undo ID [--json]`.
type UndoCmd struct {
	ID    string   `arg:"" predictor:"task" help:"Applied task to take back (t1, t2, ...)."`
	JSON  bool     `name:"json" help:"Print {id, state, files} as one JSON document."`
	Paths []string `arg:"" optional:"" name:"path" help:"Undo only these applied paths (after --, as git diff takes them); the others stay applied."`
}

// Help is the long help of undo.
func (c *UndoCmd) Help() string {
	return `Puts every file of an applied task back as it was before the apply, from the undo record the apply wrote.

Undo refuses, listing every reason and changing nothing, unless the task is applied with a complete undo record, none of it is part of a saved version (revert that commit with git instead), HEAD is on the branch it was applied on, and every path is still exactly as the apply left it (no later edit, no removal of an added file, no re-added deleted file, no mode change).

The record goes to "undoing" before any file is touched; files are restored atomically, removals last, verified, and the record goes to "undone". Undo never touches commits, the index, or files outside the patch. An undone task can be applied again.

Paths after the id (git nudge undo ID -- a.go) put back only the applied paths they match; the task stays applied (list says "applied 2/7") until no path is, and git nudge apply ID -- PATH applies them again. After an apply --merge, undo writes back the exact bytes the file held before the merge.`
}

// Operation declares the command for the operation log (opcmd.Recorded): it
// tells the recording which files it writes, and what they hold, once it
// has checked them.
func (c *UndoCmd) Operation() (oplog.Spec, bool) {
	return operation.Shared("nudge", "undo")
}

// Run undoes the task.
func (c *UndoCmd) Run(env *cli.Env) error {
	ws, err := openWorkspace(env)
	if err != nil {
		return err
	}
	ws.Files = opcmd.FilesWatch(env.Ctx)
	out, err := apply.UndoWith(env.Ctx, ws, c.ID, apply.UndoOptions{Paths: c.Paths, Dir: env.Dir})
	if err != nil {
		return refusal(err)
	}
	if c.JSON {
		return env.JSON(out)
	}
	env.Printf("Undid %s: %s put back as before the apply%s.\n", out.ID, countFiles(len(out.Files)), progress(out))
	printFiles(env, out.Files)
	for _, p := range out.Ignored {
		env.Printf("  not applied, left as it is: %s\n", displayPath(p))
	}
	env.Printf("git nudge apply %s applies it again.\n", out.ID)
	return nil
}
