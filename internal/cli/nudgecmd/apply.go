package nudgecmd

import (
	"fmt"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/opcmd"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/apply"
	"github.com/nudgethis/git-nudge/internal/operation"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// ApplyCmd is `git nudge apply ID [--json]`.
type ApplyCmd struct {
	ID   string `arg:"" predictor:"task" help:"Task to apply (t1, t2, ...)."`
	JSON bool   `name:"json" help:"Print {id, state, files} as one JSON document."`
	// AcceptConfigChange goes past changes to the shared git settings.
	AcceptConfigChange bool     `name:"accept-config-change" help:"Apply although the repository's shared git settings (config, hooks, info/, shallow) were changed while the task could change them; they were put back either way."`
	Unvalidated        bool     `name:"unvalidated" help:"Apply even though the task's git config nudge.validate commands failed."`
	Merge              bool     `name:"merge" help:"Merge the task's change three-way into files you edited since the snapshot (git merge-file); refused, nothing written, if any merge conflicts."`
	Conflicts          bool     `name:"conflicts" help:"With --merge (implied): write conflicting merges with diff3 markers; the task is applied (conflicts) and save refuses until they are resolved."`
	Paths              []string `arg:"" optional:"" name:"path" help:"Apply only these paths of the patch (after --, as git diff takes them); the rest can be applied later."`
}

// Help is the long help of apply.
func (c *ApplyCmd) Help() string {
	return `Writes a ready (or undone) task's patch, from its snapshot to its result, onto the work tree.

Apply refuses, listing every reason and changing nothing, unless HEAD is on the branch the snapshot was taken on (or detached at the same commit) and every path of the patch still holds exactly the snapshot's version in the work tree. A file edited since the snapshot is never overwritten: keep your edits, take a new snapshot and run the task again. Protected paths (.git, .nudgethis, .autodev, .env, .worktreeinclude, git config nudge.protect; matched in any case), symlinks, submodules and files over 16 MiB need manual handling.

Before touching any file, the task record goes to "applying" with an undo record (each path's mode and blob before and after). Files are written atomically (temp file and rename), removals come last, and the result is verified. Nothing is staged or committed and the index is left byte-for-byte as it was; files outside the patch are not touched. git nudge undo takes the apply back; git nudge save commits it.

A task's worktree shares the repository's git folder, so a task can change its config, hooks, what is in info/ and shallow. git nudge compares them with the state it trusts when a snapshot is taken, a run ends, a result is captured and a task is applied; what changed while a task could change it is listed on stderr and put back (the version found is kept in .nudgethis/quarantine/), and apply refuses that task until you have looked: --accept-config-change applies it anyway. The protection rules (nudge.protect, nudge.skipDir) are the ones recorded when the task was created.

A task whose validation (git config nudge.validate) failed is refused, the failed commands listed, unless --unvalidated.

Paths after the id (git nudge apply ID -- src/ '*.go') apply only the paths of the patch they match, read as git diff reads them; the others can be applied later (git nudge apply ID applies the rest) or never. Every check holds per path; list and show say "applied 3/7" until every path is applied, and save commits only the applied paths. git nudge undo ID -- PATH takes paths back the same way.

--merge merges the task's change into a file you edited since the snapshot, three-way (base: the snapshot's version, ours: the work tree's, theirs: the result's), as git merge-file does. The merge is written only when every merged path merges cleanly; otherwise nothing is written and each conflicting path is listed with its lines. --conflicts writes the conflicts with diff3 markers instead: the task is "applied (conflicts)" and save refuses while markers remain. Undo puts back the exact bytes that were there before the merge.`
}

// Operation declares the command for the operation log (opcmd.Recorded): it
// tells the recording which files it writes, and what they hold, once it
// has checked them.
func (c *ApplyCmd) Operation() (oplog.Spec, bool) {
	return operation.Shared("nudge", "apply")
}

// Run applies the task.
func (c *ApplyCmd) Run(env *cli.Env) error {
	ws, err := openWorkspace(env)
	if err != nil {
		return err
	}
	ws.Warn = env.Stderr
	ws.Files = opcmd.FilesWatch(env.Ctx)
	out, err := apply.Run(env.Ctx, ws, c.ID, apply.Options{AcceptConfigChange: c.AcceptConfigChange, Unvalidated: c.Unvalidated, Dir: env.Dir,
		Paths: c.Paths, Merge: c.Merge, Conflicts: c.Conflicts})
	if err != nil {
		return refusal(err)
	}
	if c.JSON {
		return env.JSON(out)
	}
	env.Printf("Applied %s: %s changed in the work tree%s.\n", out.ID, countFiles(len(out.Files)), progress(out))
	printFiles(env, out.Files)
	for _, p := range out.Ignored {
		env.Printf("  already applied, left as it is: %s\n", displayPath(p))
	}
	for _, p := range out.Merged {
		env.Printf("  merged with your edits: %s\n", displayPath(p))
	}
	for _, p := range out.Conflicts {
		env.Printf("  %s: %s\n", env.Paint("31", "conflict markers written"), displayPath(p))
	}
	if len(out.Conflicts) > 0 {
		env.Printf("Resolve the conflict markers (<<<<<<< workspace ... >>>>>>> %s) before git nudge save; git nudge undo %s puts back what was there.\n", out.ID, out.ID)
	}
	env.Printf("Nothing was staged or committed. Review with git status and git diff (new files are untracked); git nudge undo %s puts these files back, git nudge save commits them.\n", out.ID)
	return nil
}

// progress is ", applied 3 of 7 paths" when only some paths are applied.
func progress(out *apply.Outcome) string {
	if out.Applied == 0 || out.Applied >= out.Total {
		return ""
	}
	return fmt.Sprintf(" (%d of the patch's %d paths now applied)", out.Applied, out.Total)
}

func countFiles(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}

// printFiles lists paths with their status letter, one per line.
func printFiles(env *cli.Env, files []apply.FileOutcome) {
	colors := map[string]string{"A": "32", "M": "33", "D": "31"}
	for _, f := range files {
		env.Printf("  %s  %s\n", env.Paint(colors[f.Status], f.Status), displayPath(f.Path))
	}
}

// displayPath quotes a path that would not read back from one line.
func displayPath(p string) string { return nudge.QuotePath(p) }
