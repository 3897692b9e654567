package nudgecmd

import (
	"strings"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge/save"
	"github.com/nudgethis/git-nudge/internal/operation"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// SaveCmd is `git nudge save [-m MESSAGE] [ID...]`.
type SaveCmd struct {
	Message string   `short:"m" placeholder:"MESSAGE" help:"Commit message (default: one naming the saved tasks)."`
	IDs     []string `arg:"" predictor:"task" optional:"" name:"id" help:"Tasks to save (default: every applied, unsaved task of the current branch)."`
	JSON    bool     `name:"json" help:"Print the saved version as one JSON document."`
	Whole   bool     `name:"whole-files" help:"Commit a file whose task's change touches the same lines as your own edits of it as it is now, your edits included (else save refuses it)."`
}

// Help is the long help of save.
func (c *SaveCmd) Help() string {
	return `Commits applied work as one commit on the current branch: exactly the change you reviewed. Each file the applied, unsaved tasks changed is committed as HEAD has it with the task's change merged in (three-way, with git merge-file), and must still be as apply left it. On a detached HEAD the commit goes on HEAD itself, which moves to it. During a merge, rebase, cherry-pick or revert save refuses, as git autodev checkpoint does: finish or abort it first.

Your own edits, staged or not, are not part of the commit, also in the files the tasks changed: they stay in the work tree, and what you had staged stays staged (its index entry gets the task's change too, as git stash pop would give it). Where the task's change and your edits of a file touch the same lines they cannot be told apart: save refuses and names the file, unless --whole-files, which commits such a file as it is now, your edits included, and says so. The commit is yours (user.name and user.email must be set) and no hook runs. A saved task can no longer be undone with git nudge undo: revert its commit with git revert.

Every save is journaled in .nudgethis/saves.json before the branch moves; a save interrupted by a crash is completed or rolled back the next time save runs, by looking at where the branch points, and reported.`
}

// Operation declares the command for the operation log (opcmd.Recorded): it
// moves the branch and may change the index.
func (c *SaveCmd) Operation() (oplog.Spec, bool) {
	return operation.Shared("nudge", "save")
}

// Run saves.
func (c *SaveCmd) Run(env *cli.Env) error {
	ws, err := openWorkspace(env)
	if err != nil {
		return err
	}
	rep, err := save.Run(env.Ctx, ws, save.Options{Message: c.Message, IDs: c.IDs, WholeFiles: c.Whole})
	if rep != nil {
		for _, n := range rep.Settled {
			env.Warnf("git nudge: %s\n", n)
		}
	}
	if err != nil {
		return refusal(err)
	}
	if c.JSON {
		return env.JSON(rep)
	}
	if rep.Commit == "" {
		return nil // only an interrupted save was settled (reported above)
	}
	where := strings.TrimPrefix(rep.Branch, "refs/heads/")
	if rep.Branch == "HEAD" {
		where = "the detached HEAD"
	}
	env.Printf("Saved %s as %s on %s (%s).\n", strings.Join(rep.Tasks, ", "), rep.Commit[:min(12, len(rep.Commit))],
		where, countFiles(len(rep.Paths)))
	for _, p := range rep.Paths {
		env.Printf("  %s\n", displayPath(p))
	}
	if len(rep.Kept) > 0 {
		env.Printf("Your own edits in %s stay out of the commit, in the work tree (and staged where they were staged).\n", quotedList(rep.Kept))
	}
	if len(rep.WholeFiles) > 0 {
		env.Printf("Committed whole, your own edits included (--whole-files): %s.\n", quotedList(rep.WholeFiles))
	}
	return nil
}

// quotedList is "a.txt", "a.txt and b.txt", "a, b and c": paths as git shows them.
func quotedList(paths []string) string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = displayPath(p)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}
