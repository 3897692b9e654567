package autodevcmd

import (
	"errors"

	"github.com/nudgethis/git-nudge/internal/autodev"
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/autodevjson"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// SquashCmd is `git autodev squash`.
type SquashCmd struct {
	From    string `placeholder:"ID" help:"Oldest checkpoint to fold (an id or a commit prefix); default: every checkpoint since the last commit that is not one."`
	Message string `short:"m" name:"message" placeholder:"MESSAGE" help:"Message of the new commit; default: the newest checkpoint's label, with every folded label listed below it."`
	JSON    bool   `name:"json" help:"Print the result as JSON."`
}

// Help is the long help.
func (c *SquashCmd) Help() string {
	return `Before you push: folds the autodev checkpoint commits at the tip of the current branch (every one since the last commit that is not a checkpoint, or from --from ID on) into one commit authored and committed by you, with git's usual identity (set user.name and user.email first). The new commit has exactly the tree of HEAD, so the files and the index are not touched; only the branch moves.

The folded checkpoints keep their refs/autodev/checkpoints/<id> refs, so git autodev restore can still go back to any of them; the list marks them "squashed into <commit>". Refused, with nothing changed, when HEAD is not a checkpoint commit, when a commit of your own lies between --from ID and HEAD, while a run is active, and while a merge or rebase is in progress. Recorded in the operation log: git autodev op undo puts the branch back on the checkpoints, if it has not moved since.`
}

// Operation declares the command for the operation log (opcmd.Recorded).
func (c *SquashCmd) Operation() (oplog.Spec, bool) {
	return oplog.Spec{Kind: "squash", Scope: oplog.ScopeCheckpoints, LeavesIndex: true}, true
}

// Run squashes.
func (c *SquashCmd) Run(env *cli.Env) error {
	ws, err := open(env, c.JSON)
	if ws == nil {
		return err
	}
	res, err := ws.Squash(env.Ctx, autodev.SquashRequest{From: c.From, Message: c.Message})
	var se *autodev.SquashError
	if errors.As(err, &se) {
		return exitQuiet(env, "git autodev: cannot squash: "+se.Reason)
	}
	if err != nil {
		return err
	}
	if c.JSON {
		ids := make([]string, len(res.Folded))
		for i, e := range res.Folded {
			ids[i] = e.ID
		}
		return env.JSON(map[string]any{
			"commit": res.Commit,
			"parent": autodevjson.Nullable(res.Base),
			"before": res.Old,
			"branch": res.Branch,
			"folded": ids,
		})
	}
	first, last := res.Folded[0].ID, res.Folded[len(res.Folded)-1].ID
	span := first
	if first != last {
		span = first + ".." + last
	}
	env.Printf("Squashed %s (%s) into %s on %s; the files and the index are unchanged.\n",
		count(len(res.Folded), "checkpoint", "checkpoints"), span, autodev.Short(res.Commit), branchName(res.Branch))
	env.Printf("The checkpoints stay restorable (git autodev restore %s); git autodev op undo takes the squash back.\n", last)
	return nil
}

// branchName is a ref name as a user says it.
func branchName(ref string) string {
	const heads = "refs/heads/"
	if len(ref) > len(heads) && ref[:len(heads)] == heads {
		return ref[len(heads):]
	}
	if ref == "HEAD" {
		return "a detached HEAD"
	}
	return ref
}
