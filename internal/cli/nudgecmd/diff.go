package nudgecmd

import (
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge/review"
)

// DiffCmd is `git nudge diff`.
type DiffCmd struct {
	ID         string   `arg:"" predictor:"task" help:"Task whose patch to show."`
	Paths      []string `arg:"" optional:"" name:"path" help:"Show only these paths (after --, as git diff takes them: relative to the current folder, globs allowed)."`
	Stat       bool     `name:"stat" xor:"format" help:"Show a diffstat instead of the patch."`
	NameStatus bool     `name:"name-status" xor:"format" help:"Show each changed path with its status letter."`
	MaxBytes   *int64   `name:"max-bytes" placeholder:"N" help:"Print at most N bytes of patch, then say how much was cut (0: no bound). Default: 1 MiB on a terminal, no bound when piped or redirected."`
}

// Help is the long help.
func (c *DiffCmd) Help() string {
	return `Shows the patch from the task's snapshot to its result, coloured on a terminal. On a terminal the output is bounded: after 1 MiB (--max-bytes N to change it, 0 for no bound) a line says how much was left out and which git diff shows everything. Piped or redirected, the whole patch is printed, binary changes included, so that git nudge diff ID | git apply works; notices (what was cut, files over 16 MiB, which are named, never printed) go to stderr, never into the patch. Paths after the id (git nudge diff ID -- src/ '*.go') limit the patch, the diffstat or the list to the paths they match, read as git diff reads them: relative to the current folder (in a task's worktree, the same folder of the task), globs allowed.`
}

// Run prints the patch.
func (c *DiffCmd) Run(env *cli.Env) error {
	w, err := readWorkspace(env)
	if err != nil {
		return err
	}
	if err := w.Settle(env.Ctx); err != nil {
		return err
	}
	specs, err := w.Pathspecs(env.Dir, c.Paths)
	if err != nil {
		return err
	}
	terminal := env.Terminal
	format := review.DiffPatch
	switch {
	case c.Stat:
		format = review.DiffStat
	case c.NameStatus:
		format = review.DiffNameStatus
	case !terminal:
		format = review.DiffBinaryPatch
	}
	out := env.Stdout
	if terminal {
		// The patch holds the task's file contents: on a terminal, escape
		// sequences in them are shown, never obeyed (git's colours pass).
		safe := cli.SafePatchWriter(env.Stdout, env.Color)
		defer safe.Close()
		out = safe
	}
	return review.Diff(env.Ctx, w, c.ID, out, review.DiffOptions{
		Format: format, Color: env.Color, Limit: diffLimit(c.MaxBytes, terminal), Notices: env.Stderr, Pathspecs: specs,
	})
}

// diffLimit is the bound of diff's output: --max-bytes when given, else
// 1 MiB on a terminal and none otherwise (a patch cut short would not
// apply).
func diffLimit(maxBytes *int64, terminal bool) int64 {
	switch {
	case maxBytes != nil:
		return max(*maxBytes, 0)
	case terminal:
		return review.DiffLimit
	}
	return 0
}
