package nudgecmd

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/review"
	"github.com/nudgethis/git-nudge/internal/pathenc"
)

// ShowCmd is `git nudge show`.
type ShowCmd struct {
	ID   string `arg:"" predictor:"task" help:"Task to show."`
	JSON bool   `name:"json" help:"Print the whole task record as one JSON document."`
}

// Help is the long help.
func (c *ShowCmd) Help() string {
	return `Shows everything recorded about a task: state, note, snapshot, worktree, command and exit status, result, the files of its patch, the undo record (undo.before and undo.after), any error and the review comments kept with it (--json: "comments", a list of {id, path, line, end_line, text, time}).`
}

// Run shows the task.
func (c *ShowCmd) Run(env *cli.Env) error {
	w, err := readWorkspace(env)
	if err != nil {
		return err
	}
	if err := w.Settle(env.Ctx); err != nil {
		return err
	}
	t, err := w.Load(c.ID)
	if err != nil {
		return err
	}
	view, err := review.View(w, t)
	if err != nil {
		return err
	}
	if c.JSON {
		return env.JSON(view)
	}
	printTaskFields(env, w, t)
	printTaskLists(env, t, view)
	return nil
}

// printTaskFields prints show's "name: value" lines of t, in order, with
// the validation commands and the logs kept.
func printTaskFields(env *cli.Env, w *nudge.Workspace, t *nudge.Task) {
	field := func(name, value string) { env.Printf("%-11s %s\n", name+":", value) }
	env.Printf("%s %s\n", env.Paint("1", t.ID), t.Label())
	if t.Note != "" {
		field("note", oneLine(t.Note))
	}
	field("created", t.Created.Local().Format(time.RFC3339))
	field("workspace", t.Workspace)
	if t.State != nudge.StatePending {
		field("branch", branchLabel(t.Branch))
		if t.Head != nil {
			field("head", *t.Head)
		} else {
			field("head", "(no commit yet)")
		}
	}
	clean := "dirty"
	if t.Clean {
		clean = "clean"
	}
	if t.State == nudge.StatePending {
		field("snapshot", "(taken when git nudge work starts the task)")
	} else {
		field("snapshot", fmt.Sprintf("%s (%s)", t.Snapshot, clean))
	}
	if t.RefreshedFrom != "" {
		field("refreshed", "from "+t.RefreshedFrom+" (its change merged onto this task's snapshot)")
	}
	if t.Setup != nil {
		field("setup", fmt.Sprintf("%s (the task's patch starts here)", *t.Setup))
	}
	if t.Worktree != nil {
		field("worktree", *t.Worktree)
	} else if t.WorktreeReleased {
		field("worktree", fmt.Sprintf("given back once its result was recorded; git nudge start %s brings one back at the result", t.ID))
	}
	if len(t.Command) > 0 {
		cmd := pathenc.ShellJoin(t.Command)
		if t.ExitCode != nil {
			cmd += fmt.Sprintf("  (exit status %d)", *t.ExitCode)
		}
		field("command", cmd)
	}
	if t.PID != nil {
		who := fmt.Sprintf("git-nudge pid %d", *t.PID)
		if t.CommandPID != nil {
			who += fmt.Sprintf(", command pid %d", *t.CommandPID)
		}
		if nudgePID, _, ok := w.Orphaned(t); ok {
			who += fmt.Sprintf(" (git-nudge %d has ended; the command still runs)", nudgePID)
		}
		field("process", who)
	}
	if t.Result != nil {
		field("result", *t.Result)
	}
	if t.Validation != nil {
		v := t.Validation
		line := v.State
		if v.Reason != "" {
			line += " (" + v.Reason + ")"
		}
		field("validation", line)
		for _, c := range v.Commands {
			env.Printf("  %s  %s  %s\n", commandOutcome(c), (time.Duration(c.DurationMS) * time.Millisecond).String(), c.Command)
		}
		if len(v.Leftover) > 0 {
			env.Printf("  changed by validation, put back to the result (kept in %s):\n", v.LeftoverCommit)
			for _, p := range v.Leftover {
				env.Printf("    %s\n", displayPath(p))
			}
		}
	}
	for _, name := range []string{"setup.log", "run.log", "validate.log"} {
		p := filepath.Join(w.LogDir(t.ID), name)
		if fileExists(p) {
			field("log", p)
		}
	}
	if t.AppliedAt != nil {
		field("applied", t.AppliedAt.Local().Format(time.RFC3339))
	}
	if t.UndoneAt != nil {
		field("undone", t.UndoneAt.Local().Format(time.RFC3339))
	}
	if t.SavedIn != nil {
		field("saved in", *t.SavedIn)
	}
	if t.Error != nil {
		field("error", *t.Error)
	}
}

// printTaskLists prints show's lists of t's paths and lines (left out,
// changed by setup, settings and refs changed, files, conflicts, review
// comments), each under its heading and only when not empty.
func printTaskLists(env *cli.Env, t *nudge.Task, view review.TaskView) {
	if len(t.Skipped) > 0 {
		env.Printf("Left out of the snapshot:\n")
		for _, s := range t.Skipped {
			env.Printf("  %s  (%s)\n", displayPath(s.Path), s.Reason)
		}
	}
	if len(t.ResultSkipped) > 0 {
		env.Printf("Left out of the result:\n")
		for _, s := range t.ResultSkipped {
			env.Printf("  %s  (%s)\n", displayPath(s.Path), s.Reason)
		}
	}
	if len(t.SetupFiles) > 0 {
		env.Printf("Changed by setup (not the task's work, never applied) (%d):\n", len(t.SetupFiles))
		for _, f := range t.SetupFiles {
			env.Printf("  %s  %s\n", f.Status, displayPath(f.Path))
		}
	}
	if len(t.ConfigChanges) > 0 {
		env.Printf("Shared git settings changed while it could change them (put back; apply needs --accept-config-change):\n")
		for _, l := range t.ConfigChanges {
			env.Printf("  %s\n", l)
		}
	}
	if lines := nudge.RefChangeLines(t); len(lines) > 0 {
		env.Printf("Refs changed outside its own by its last run (%d):\n", len(lines))
		for _, l := range lines {
			env.Printf("  %s\n", l)
		}
	}
	if t.Result != nil {
		env.Printf("Files (%d):\n", len(t.Files))
		for _, f := range t.Files {
			// Mode and blob before and after, as git diff --raw gives
			// them (zeros where there is no file); --json has full ids.
			env.Printf("  %s  %s %s -> %s %s  %s\n", f.Status, modeText(f.OldMode), blobText(f.OldBlob),
				modeText(f.NewMode), blobText(f.NewBlob), displayPath(f.Path))
		}
	}
	if t.Undo != nil {
		env.Printf("Undo record: %d path(s), before and after (git nudge show %s --json has them)\n", len(t.Undo.Before), t.ID)
	}
	if len(t.RefreshConflicts) > 0 {
		env.Printf("Could not be merged by refresh (%d):\n", len(t.RefreshConflicts))
		for _, cf := range t.RefreshConflicts {
			env.Printf("  %s\n", cf.String())
		}
	}
	if len(view.Comments) > 0 {
		env.Printf("Review comments (%d; git nudge comment %s --delete CID removes one):\n", len(view.Comments), t.ID)
		printComments(env, view.Comments)
	}
}

// modeText is a file's mode for show, "000000" for no file.
func modeText(m *string) string {
	if m == nil || *m == "" {
		return "000000"
	}
	return *m
}

// blobText is a blob id for show, cut to 7 digits as git diff --raw
// does, "0000000" for no file.
func blobText(b *string) string {
	if b == nil || *b == "" {
		return "0000000"
	}
	if len(*b) > 7 {
		return (*b)[:7]
	}
	return *b
}
