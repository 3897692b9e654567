package nudgecmd

import (
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/apply"
)

// RecoverCmd is `git nudge recover ID [--json]`.
type RecoverCmd struct {
	ID   string `arg:"" predictor:"task" help:"Task whose apply or undo was interrupted (t1, t2, ...)."`
	JSON bool   `name:"json" help:"Print the report as one JSON document."`
}

// Help is the long help of recover.
func (c *RecoverCmd) Help() string {
	return `Shows, for each path of a task's undo record, whether the work tree now holds the version from before the apply, the version the apply writes, or neither.

An apply or undo that was interrupted (the process killed, the machine stopped) leaves its task "Recovery required". Such a task is never retried, undone or dropped automatically: recover reports where each file stands and the commands to inspect it, and changes nothing. Resolve the files by hand, then start a new task from the result. The record is kept for reference.`
}

// Run prints the report.
func (c *RecoverCmd) Run(env *cli.Env) error {
	ws, err := openWorkspace(env)
	if err != nil {
		return err
	}
	rep, err := apply.Recover(env.Ctx, ws, c.ID)
	if err != nil {
		return refusal(err)
	}
	if c.JSON {
		return env.JSON(rep)
	}
	env.Printf("%s: %s\n", rep.ID, nudge.StateLabel(rep.State))
	if rep.Error != nil {
		env.Printf("%s\n", *rep.Error)
	}
	env.Printf("Each file of the patch now holds (before = as before the apply, after = as the apply writes it):\n")
	colors := map[string]string{"before": "36", "after": "32", "both": "32", "neither": "31"}
	for _, f := range rep.Files {
		line := "  " + env.Paint(colors[f.Matches], pad(f.Matches, 8)) + " " + displayPath(f.Path)
		if f.Matches == "neither" {
			line += "  (now: " + f.Now + ")"
		}
		env.Printf("%s\n", line)
	}
	if len(rep.Leftovers) > 0 {
		env.Printf("Temporary files left by the interrupted write (their content is in the repository; delete them):\n")
		for _, l := range rep.Leftovers {
			env.Printf("  %s\n", displayPath(l))
		}
	}
	env.Printf("Inspect with:\n")
	for _, c := range rep.Commands {
		env.Printf("  %s\n", c)
	}
	if rep.State != nudge.StateRecoveryRequired {
		env.Printf("%s was not interrupted, so there is nothing to recover; the report above is for reference.\n", rep.ID)
		return nil
	}
	env.Printf("Resolve the files by hand, then start a new task from the result (git nudge snapshot). Nothing is retried automatically; the record of %s is kept until git nudge drop --force %s removes it.\n", rep.ID, rep.ID)
	return nil
}

func pad(s string, n int) string {
	for len(s) < n {
		s += " "
	}
	return s
}
