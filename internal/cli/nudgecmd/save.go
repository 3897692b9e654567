package nudgecmd

import (
	"strings"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge"
)

// SaveCmd is `git nudge save [-m MESSAGE] [ID...]`.
type SaveCmd struct {
	Message string   `short:"m" placeholder:"MESSAGE" help:"Commit message (default: one naming the saved tasks)."`
	IDs     []string `arg:"" predictor:"task" optional:"" name:"id" help:"Tasks to save (default: every applied, unsaved task of the current branch)."`
	JSON    bool     `name:"json" help:"Print the saved version as one JSON document."`
}

// Help is the long help of save.
func (c *SaveCmd) Help() string {
	return `Commits applied work as one commit on the current branch: HEAD's tree plus exactly the paths the applied, unsaved tasks changed, as they are in the work tree now (each must still be as apply left it). On a detached HEAD the commit goes on HEAD itself, which moves to it. During a merge, rebase, cherry-pick or revert save refuses, as git autodev checkpoint does: finish or abort it first.

Your other local edits, staged or not, are not part of the commit and stay exactly as they were; the index entries of the saved paths are set to the new commit's. The commit is yours (user.name and user.email must be set) and no hook runs. A saved task can no longer be undone with git nudge undo: revert its commit with git revert.

Every save is journaled in .nudgethis/saves.json before the branch moves; a save interrupted by a crash is completed or rolled back the next time save runs, by looking at where the branch points, and reported.`
}

// Run saves.
func (c *SaveCmd) Run(env *cli.Env) error {
	ws, err := openWorkspace(env)
	if err != nil {
		return err
	}
	rep, err := ws.SaveVersion(env.Ctx, nudge.SaveOptions{Message: c.Message, IDs: c.IDs})
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
	return nil
}
