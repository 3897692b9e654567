package nudgecmd

import (
	"bytes"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/nudgethis/git-nudge/internal/age"
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/save"
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
	pending, err := save.Pending(env.Ctx, w)
	if err != nil {
		return err
	}
	for _, n := range pending {
		env.Warnf("git nudge: warning: %s\n", n)
	}
	if c.JSON {
		// The whole records, as show prints them.
		tasks, err := w.List()
		if err != nil {
			return err
		}
		if tasks == nil {
			tasks = []*nudge.Task{}
		}
		return env.JSON(tasks)
	}
	// The table needs a few fields of each record: read only those.
	tasks, err := w.Summaries()
	if err != nil {
		return err
	}
	if len(tasks) == 0 {
		env.Printf("No tasks yet: git nudge snapshot or git nudge run -- CMD makes one.\n")
		return nil
	}
	// One write for the table, not one per cell.
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tAGE\tFILES\tBRANCH\tNOTE")
	now := env.Now()
	for _, t := range tasks {
		files := "-"
		if t.HasResult {
			files = fmt.Sprint(t.Files)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, stateLabelText(t.Label(), t.State, t.Validation), age.Since(now, t.Created),
			files, pathenc.Text(branchLabel(t.Branch)), pathenc.Text(oneLine(noteOrCommand(t.Note, t.Command))))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if _, err := env.Stdout.Write(buf.Bytes()); err != nil {
		return err
	}
	for _, t := range tasks {
		if nudgePID, cmdPID, ok := w.OrphanedSummary(t); ok {
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
	v := ""
	if t.Validation != nil {
		v = t.Validation.State
	}
	return stateText(t.State, v)
}

// stateText is stateWithValidation for a state and the state of the
// task's validation ("" when none).
func stateText(state, validation string) string {
	return stateLabelText(nudge.StateLabel(state), state, validation)
}

// stateLabelText is stateText with the state's label given ("applied 3/7").
func stateLabelText(s, state, validation string) string {
	if state == nudge.StateValidating {
		return s
	}
	switch validation {
	case nudge.ValidationPassed:
		return s + " (validated)"
	case nudge.ValidationFailed:
		return s + " (validation failed)"
	case nudge.ValidationSkipped:
		return s + " (not validated)"
	}
	return s
}

func noteOrCommand(note string, command []string) string {
	if note != "" {
		return note
	}
	if len(command) > 0 {
		return "$ " + pathenc.ShellJoin(command)
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
