package autodevcmd

import (
	"github.com/nudgethis/git-nudge/internal/autodev"
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/autodevjson"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// ParkCmd is `git autodev park`.
type ParkCmd struct {
	Message string `short:"m" name:"message" placeholder:"LABEL" help:"Label of the parked commit (autodev: parked — <label>)."`
	JSON    bool   `name:"json" help:"Print the result as JSON."`
}

// Help is the long help.
func (c *ParkCmd) Help() string {
	return `Commits the whole work tree (as a checkpoint would: tracked changes, staged or not, and untracked files; not ignored files, not .autodev/, not the untracked protected or over-16-MiB files a checkpoint leaves out) onto a new branch autodev/parked-<time>, leaving the files, the index, HEAD and the current branch exactly as they were, and sets the run state to error. Use it when work fails after a step that cannot be undone: the tree is kept for a person to look at instead of being rewound. A clean tree makes no commit; the branch then points at HEAD.`
}

// Operation declares the command for the operation log (opcmd.Recorded).
func (c *ParkCmd) Operation() (oplog.Spec, bool) {
	return oplog.Spec{Kind: "park", Scope: oplog.ScopeCheckpoints}, true
}

// Run parks the tree.
func (c *ParkCmd) Run(env *cli.Env) error {
	ws, err := open(env, c.JSON)
	if ws == nil {
		return err
	}
	p, err := ws.Park(env.Ctx, c.Message)
	if err != nil {
		return err
	}
	if c.JSON {
		return env.JSON(map[string]any{
			"branch":   autodevjson.Nullable(p.Branch),
			"commit":   autodevjson.Nullable(p.Commit),
			"clean":    p.Clean,
			"status":   autodev.StatusError,
			"left_out": autodevjson.LeftOut(p.LeftOut),
		})
	}
	defer printLeftOut(env, p.LeftOut)
	switch {
	case p.Branch == "":
		env.Printf("Nothing to park: there is no commit yet and the work tree is empty. Run state: error.\n")
	case p.Clean:
		env.Printf("The work tree matches HEAD; %s points at HEAD (%s). Run state: error.\n", p.Branch, autodev.Short(p.Commit))
	default:
		env.Printf("Parked the work tree on %s (%s); files, index and HEAD are unchanged. Run state: error.\n", p.Branch, autodev.Short(p.Commit))
	}
	return nil
}
