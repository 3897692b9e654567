package autodevcmd

import (
	"github.com/nudgethis/git-nudge/internal/cli"
)

// DuCmd is `git autodev du`.
type DuCmd struct {
	Top  int  `default:"5" help:"How many of the largest checkpoints to list."`
	JSON bool `name:"json" help:"Print {kinds: [{kind, count, unit, bytes}], largest: [{id, bytes}], total_bytes} as one JSON document."`
}

// Help is the long help.
func (c *DuCmd) Help() string {
	return `Shows what git autodev holds on disk, by kind: the checkpoint refs with the bytes of the objects only they keep (checkpoints no branch holds any more, after a restore or a squash: what git gc could reclaim once they are pruned and the operation log no longer holds them), the autodev/ branches restore and park made, the .autodev journals and the operation log; then the checkpoints that keep the most. git autodev prune drops old checkpoints.`
}

// Run measures and prints.
func (c *DuCmd) Run(env *cli.Env) error {
	ws, err := open(env, c.JSON)
	if ws == nil {
		return err
	}
	u, err := ws.DiskUsage(env.Ctx, c.Top)
	if err != nil {
		return err
	}
	if c.JSON {
		return env.JSON(u)
	}
	env.Printf("%s", u.Text("Largest checkpoints (bytes only they keep):"))
	return nil
}
