package nudgecmd

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/pathenc"
)

// ListCmd is `git nudge list`.
type ListCmd struct {
	JSON bool `name:"json" help:"Print the task records as one JSON array."`
}

// Help is the long help.
func (c *ListCmd) Help() string {
	return `Lists the workspace's tasks, newest first: id, state, age, note (or command), number of files changed, branch. A save that was interrupted (its process died) is reported on stderr: where it stands, whether a git commit now would undo it, and what the next git nudge save does with it. The state says how the task's validation (git config nudge.validate) went: "ready (validated)", "ready (validation failed)", "ready (not validated)"; pending tasks (git nudge queue) wait for git nudge work.`
}

// Run lists the tasks.
func (c *ListCmd) Run(env *cli.Env) error {
	w, err := readWorkspace(env)
	if err != nil {
		return err
	}
	if err := w.Settle(env.Ctx); err != nil {
		return err
	}
	pending, err := w.PendingSaves(env.Ctx)
	if err != nil {
		return err
	}
	for _, n := range pending {
		env.Warnf("git nudge: warning: %s\n", n)
	}
	tasks, err := w.List()
	if err != nil {
		return err
	}
	if c.JSON {
		if tasks == nil {
			tasks = []*nudge.Task{}
		}
		return env.JSON(tasks)
	}
	if len(tasks) == 0 {
		env.Printf("No tasks yet: git nudge snapshot or git nudge run -- CMD makes one.\n")
		return nil
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tAGE\tFILES\tBRANCH\tNOTE")
	now := env.Now()
	for _, t := range tasks {
		files := "-"
		if t.Result != nil {
			files = fmt.Sprint(len(t.Files))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, stateWithValidation(t), age(now.Sub(t.Created)),
			files, pathenc.Text(branchLabel(t.Branch)), pathenc.Text(oneLine(noteOrCommand(t))))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, t := range tasks {
		if nudgePID, cmdPID, ok := w.Orphaned(t); ok {
			who := "a process it started"
			if cmdPID > 0 {
				who = fmt.Sprintf("its command (pid %d) or a process that command started", cmdPID)
			}
			env.Printf("%s is still %s: git-nudge (pid %d) has ended, but %s still holds the task; it stays %s until that ends.\n",
				t.ID, nudge.StateLabel(t.State), nudgePID, who, nudge.StateLabel(t.State))
		}
	}
	return nil
}

// stateWithValidation is a task's state for list, with how its
// validation went: "ready (validation failed)".
func stateWithValidation(t *nudge.Task) string {
	s := nudge.StateLabel(t.State)
	if t.Validation == nil || t.State == nudge.StateValidating {
		return s
	}
	switch t.Validation.State {
	case nudge.ValidationPassed:
		return s + " (validated)"
	case nudge.ValidationFailed:
		return s + " (validation failed)"
	case nudge.ValidationSkipped:
		return s + " (not validated)"
	}
	return s
}

func noteOrCommand(t *nudge.Task) string {
	if t.Note != "" {
		return t.Note
	}
	if len(t.Command) > 0 {
		return "$ " + strings.Join(t.Command, " ")
	}
	return ""
}

func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// age is a short human duration: 45s, 12m, 3h, 9d.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(int(d.Seconds()), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
