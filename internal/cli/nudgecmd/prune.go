package nudgecmd

import (
	"time"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge/retire"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// PruneCmd is `git nudge prune`.
type PruneCmd struct {
	OlderThan string `name:"older-than" placeholder:"AGE" help:"Drop tasks unchanged for this long: 30d, 12h, 2w (default: git config nudge.retention)."`
	Keep      int    `placeholder:"N" default:"-1" help:"Keep the N newest tasks whatever their age."`
	DryRun    bool   `name:"dry-run" help:"Say what would be dropped and kept, and change nothing."`
	Verbose   bool   `short:"v" help:"Also list the tasks kept, and why."`
	JSON      bool   `name:"json" help:"Print {dropped: [ids], kept: [{id, state, reason}], recent, dry_run} as one JSON document."`
}

// Help is the long help.
func (c *PruneCmd) Help() string {
	return `Drops old tasks as git nudge drop does (worktree, refs, logs and record), oldest first. Never dropped: a task that is applied and not saved, one being applied or undone, running or validating, queued, Recovery required, or whose worktree holds work no capture recorded; those are kept and --dry-run or -v says why. --older-than AGE drops tasks whose record has not changed for AGE; --keep N keeps the N newest whatever their age; without either, nudge.retention gives the age. A prune is one operation in the log: git nudge op undo brings back the records and refs (not the logs or worktrees) while their objects exist.`
}

// Operation declares the command for the operation log (opcmd.Recorded):
// a prune is recorded, so op undo brings back what it dropped while the
// objects exist; --dry-run changes nothing.
func (c *PruneCmd) Operation() (oplog.Spec, bool) {
	if c.DryRun {
		return oplog.Spec{}, false
	}
	return oplog.Spec{Kind: "prune", Scope: oplog.ScopeTasks, LeavesIndex: true}, true
}

// Run prunes.
func (c *PruneCmd) Run(env *cli.Env) error {
	w, err := openWorkspace(env)
	if err != nil {
		return err
	}
	o := retire.PruneOptions{DryRun: c.DryRun, Keep: max(c.Keep, 0)}
	o.OlderThan, err = cli.PruneBound(c.OlderThan, c.Keep, "nudge.retention", func() (time.Duration, error) { return retire.Retention(env.Ctx, w) })
	if err != nil {
		return err
	}
	res, err := retire.Prune(env.Ctx, w, o)
	if err != nil {
		return err
	}
	if c.JSON {
		return env.JSON(res)
	}
	printPrune(env, res, c.DryRun || c.Verbose)
	return nil
}

func printPrune(env *cli.Env, res *retire.PruneResult, verbose bool) {
	verb := "Dropped"
	if res.DryRun {
		verb = "Would drop"
	}
	if len(res.Dropped) == 0 {
		env.Printf("Nothing to prune.\n")
	} else {
		env.Printf("%s %d task(s): %s.\n", verb, len(res.Dropped), cli.JoinIDs(res.Dropped, 20))
	}
	if verbose {
		for _, k := range res.Kept {
			env.Printf("Kept %s (%s): %s.\n", k.ID, k.State, k.Reason)
		}
	} else if len(res.Kept) > 0 {
		env.Printf("Kept %d old task(s) that you could still want (git nudge prune --dry-run says why).\n", len(res.Kept))
	}
	if res.Stopped {
		env.Printf("Stopped after its time budget; %d task(s) are left for the next prune.\n", res.Left)
	}
	if len(res.Dropped) > 0 && !res.DryRun {
		env.Printf("%s\n", cli.KeepHint("nudge"))
	}
}

// autoPruneBudget bounds the work an automatic prune adds to a command.
const autoPruneBudget = 200 * time.Millisecond
