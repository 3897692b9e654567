package autodevcmd

import (
	"time"

	"github.com/nudgethis/git-nudge/internal/autodev"
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/opcmd"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// PruneCmd is `git autodev prune`.
type PruneCmd struct {
	OlderThan string `name:"older-than" placeholder:"AGE" help:"Drop checkpoints older than this: 30d, 12h, 2w (default: git config autodev.retention)."`
	Keep      int    `placeholder:"N" default:"-1" help:"Keep the N newest checkpoints whatever their age."`
	DryRun    bool   `name:"dry-run" help:"Say what would be dropped and kept, and change nothing."`
	Verbose   bool   `short:"v" help:"Also list the checkpoints kept, and why."`
	JSON      bool   `name:"json" help:"Print {dropped: [ids], kept: [{id, reason}], in_history, recent, dry_run} as one JSON document."`
}

// Help is the long help.
func (c *PruneCmd) Help() string {
	return `Drops old checkpoints: their refs (refs/autodev/checkpoints/<id>) and their entries in checkpoints.json. Never dropped: a checkpoint in the current branch's history or another branch's (the autodev/ branches aside), the one HEAD is at, and those made during a run still active; --dry-run or -v says which were kept and why. --older-than AGE drops checkpoints older than AGE; --keep N keeps the N newest whatever their age; without either, autodev.retention gives the age. Ids are never reused. A prune is one operation in the log: git autodev op undo brings back the refs and entries while their objects exist.`
}

// Operation declares the command for the operation log (opcmd.Recorded):
// a prune is recorded, so op undo brings back what it dropped while the
// objects exist; --dry-run changes nothing.
func (c *PruneCmd) Operation() (oplog.Spec, bool) {
	if c.DryRun {
		return oplog.Spec{}, false
	}
	return oplog.Spec{Kind: "prune", Scope: oplog.ScopeCheckpoints}, true
}

// Run prunes.
func (c *PruneCmd) Run(env *cli.Env) error {
	ws, err := open(env, c.JSON)
	if ws == nil {
		return err
	}
	o := autodev.PruneOptions{DryRun: c.DryRun, Keep: max(c.Keep, 0)}
	o.OlderThan, err = cli.PruneBound(c.OlderThan, c.Keep, "autodev.retention", func() (time.Duration, error) { return ws.Retention(env.Ctx) })
	if err != nil {
		return err
	}
	res, err := ws.Prune(env.Ctx, o)
	if err != nil {
		return err
	}
	if c.JSON {
		return env.JSON(res)
	}
	verb := "Dropped"
	if res.DryRun {
		verb = "Would drop"
	}
	if len(res.Dropped) == 0 {
		env.Printf("Nothing to prune.\n")
	} else {
		env.Printf("%s %s: %s.\n", verb, count(len(res.Dropped), "checkpoint", "checkpoints"), cli.JoinIDs(res.Dropped, 20))
	}
	if res.History > 0 {
		env.Printf("Kept %s in a branch's history (restore points that cost nothing).\n", count(res.History, "old checkpoint", "old checkpoints"))
	}
	if c.DryRun || c.Verbose {
		for _, k := range res.Kept {
			env.Printf("Kept %s: %s.\n", k.ID, k.Reason)
		}
	}
	if len(res.Dropped) > 0 && !res.DryRun {
		env.Printf("%s\n", cli.KeepHint("autodev"))
	}
	return nil
}

// autoPrune applies autodev.retention before a command that changes
// something, at most once a day (.autodev/prune-stamp), as its own
// operation in the log (before the command, which stays the latest); a
// day when no checkpoint is that old only sets the stamp. It
// never drops the checkpoint the command names, and says on stderr, in
// one line, what it dropped.
func autoPrune(env *cli.Env, command string, args []string) {
	ws, err := autodev.Open(env.Ctx, env.Dir, env.Now)
	if err != nil || !ws.PruneStamp().Due(env.Now()) {
		return
	}
	age, err := ws.Retention(env.Ctx)
	if err != nil || age == 0 {
		return
	}
	if on, err := ws.Enabled(env.Ctx); err != nil || !on {
		return
	}
	if !ws.AnyOlder(age) {
		_ = ws.PruneStamp().Set(env.Now())
		return
	}
	r, err := oplog.Discover(env.Ctx, env.Dir)
	if err != nil {
		return
	}
	opcmd.AutoPrune{
		Repo: r, Spec: oplog.Spec{Tool: "autodev", Kind: "prune", Scope: oplog.ScopeCheckpoints},
		Key: "autodev.retention", Age: age, Stamp: ws.PruneStamp(), Failed: "nothing was pruned",
		Prune: func() ([]string, bool, error) {
			res, err := ws.Prune(env.Ctx, autodev.PruneOptions{OlderThan: age, Except: opcmd.Positionals(args)})
			if err != nil {
				return nil, false, err
			}
			return res.Dropped, false, nil
		},
		Dropped: func(n int, age string) string {
			return count(n, "checkpoint", "checkpoints") + " older than " + age
		},
	}.Run(env)
}
