package nudgecmd

import (
	"fmt"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/oplog"
	"github.com/nudgethis/git-nudge/internal/pool"
)

// PoolCmd is `git nudge pool`: the pool of reusable task worktrees.
type PoolCmd struct {
	List  PoolListCmd  `cmd:"" default:"withargs" help:"List the parked worktrees (the default)."`
	Fill  PoolFillCmd  `cmd:"" help:"Add one fresh worktree to the pool, when it has room."`
	Clear PoolClearCmd `cmd:"" help:"Remove every parked worktree."`
}

// Help is the long help.
func (c *PoolCmd) Help() string {
	return `A task's worktree is not deleted by git nudge drop when the task left nothing uncaptured in it and no process of the task still runs there: it is parked in the pool (.nudgethis/pool/), and the next task (start, run, work) takes it instead of making a new one. The pooled worktree is brought to the new snapshot by writing only the files that differ (the ones the last task touched, told by their stat data, and those the snapshots differ in); everything else the last task left there (untracked and ignored files, nested repositories, its git settings in the worktree's own git folder) is removed, and git must then find nothing there that the snapshot lacks, otherwise it is discarded and a fresh worktree made. git config nudge.pool sets how many worktrees the pool keeps (default 2; 0 turns it off).`
}

// PoolListCmd is `git nudge pool list`.
type PoolListCmd struct {
	JSON bool `name:"json" help:"Print {bound, max_bytes, bytes, worktrees: [{name, path, bytes}]} as one JSON document."`
}

// Run lists the pool.
func (c *PoolListCmd) Run(env *cli.Env) error {
	w, err := readWorkspace(env)
	if err != nil {
		return err
	}
	pl := w.WorktreePool()
	bound, err := pl.Bound(env.Ctx)
	if err != nil {
		return err
	}
	entries, err := pl.Entries()
	if err != nil {
		return err
	}
	if entries == nil {
		entries = []pool.Entry{}
	}
	maxBytes, err := pl.MaxBytes(env.Ctx)
	if err != nil {
		return err
	}
	total := pl.Sizes(entries)
	if c.JSON {
		return env.JSON(map[string]any{"bound": bound, "max_bytes": maxBytes, "bytes": total, "worktrees": entries})
	}
	limit := "no bound"
	if maxBytes > 0 {
		limit = humanBytes(maxBytes)
	}
	env.Printf("%d of %d pooled worktrees (nudge.pool), %s of %s (nudge.pool.maxBytes)\n", len(entries), bound, humanBytes(total), limit)
	for _, e := range entries {
		env.Printf("%s\t%s\n", e.Name, e.Path)
	}
	if n := pl.Leftovers(); n > 0 {
		env.Printf("%d more folders in the pool are being filled or were left by an interrupted command; git nudge pool clear removes them.\n", n)
	}
	return nil
}

// PoolFillCmd is `git nudge pool fill`.
type PoolFillCmd struct {
	JSON bool `name:"json" help:"Print {added, name, path} as one JSON document."`
}

// Operation declares the command for the operation log (opcmd.Recorded): it
// changes only .nudgethis/pool (nothing to undo), recorded so that the log
// says it ran.
func (c *PoolFillCmd) Operation() (oplog.Spec, bool) {
	return oplog.Spec{Kind: "pool", Scope: oplog.ScopeTasks}, true
}

// Run adds one worktree.
func (c *PoolFillCmd) Run(env *cli.Env) error {
	w, err := openWorkspace(env)
	if err != nil {
		return err
	}
	e, full, err := w.WorktreePool().Fill(env.Ctx)
	if err != nil {
		return refusal(err)
	}
	if c.JSON {
		if e == nil {
			return env.JSON(map[string]any{"added": false})
		}
		return env.JSON(map[string]any{"added": true, "name": e.Name, "path": e.Path})
	}
	if full {
		env.Printf("The pool is full (nudge.pool); nothing added.\n")
		return nil
	}
	env.Printf("Added %s to the pool: %s\n", e.Name, e.Path)
	return nil
}

// PoolClearCmd is `git nudge pool clear`.
type PoolClearCmd struct {
	JSON bool `name:"json" help:"Print {removed} as one JSON document."`
}

// Operation declares the command for the operation log (opcmd.Recorded): it
// changes only .nudgethis/pool (nothing to undo), recorded so that the log
// says it ran.
func (c *PoolClearCmd) Operation() (oplog.Spec, bool) {
	return oplog.Spec{Kind: "pool", Scope: oplog.ScopeTasks}, true
}

// Run empties the pool.
func (c *PoolClearCmd) Run(env *cli.Env) error {
	w, err := openWorkspace(env)
	if err != nil {
		return err
	}
	n, err := w.WorktreePool().Clear(env.Ctx)
	if err != nil {
		return refusal(err)
	}
	if c.JSON {
		return env.JSON(map[string]any{"removed": n})
	}
	env.Printf("Removed %d pooled worktrees.\n", n)
	return nil
}

// humanBytes spells n bytes for people: 512 B, 3.2 MiB, 4.0 GiB.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
