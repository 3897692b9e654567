package nudgecmd

import (
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/nudge"
)

// DiffCmd is `git nudge diff`.
type DiffCmd struct {
	ID         string `arg:"" help:"Task whose patch to show."`
	Stat       bool   `name:"stat" xor:"format" help:"Show a diffstat instead of the patch."`
	NameStatus bool   `name:"name-status" xor:"format" help:"Show each changed path with its status letter."`
}

// Help is the long help.
func (c *DiffCmd) Help() string {
	return `Shows the patch from the task's snapshot to its result, coloured on a terminal. The output is bounded: after 1 MiB a last line says how much was left out and which git diff shows everything. Files over 16 MiB are named, never printed.`
}

// Run prints the patch.
func (c *DiffCmd) Run(env *cli.Env) error {
	w, err := openWorkspace(env)
	if err != nil {
		return err
	}
	if err := w.Settle(env.Ctx); err != nil {
		return err
	}
	format := git.DiffPatch
	switch {
	case c.Stat:
		format = git.DiffStat
	case c.NameStatus:
		format = git.DiffNameStatus
	}
	return w.Diff(env.Ctx, c.ID, env.Stdout, nudge.DiffOptions{Format: format, Color: env.Color})
}
