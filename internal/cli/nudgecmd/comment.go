package nudgecmd

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge/review"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// CommentCmd is `git nudge comment ID`.
type CommentCmd struct {
	ID      string  `arg:"" predictor:"task" help:"Task to comment on."`
	Message *string `short:"m" name:"message" placeholder:"TEXT" help:"The comment's text."`
	Path    string  `name:"path" placeholder:"P" help:"The file the comment is about (as git nudge diff --name-only shows it)."`
	Line    string  `name:"line" placeholder:"N[-M]" help:"The line, or lines N to M, of the file as the task's result has it (needs --path)."`
	List    bool    `name:"list" help:"List the task's comments instead."`
	Delete  string  `name:"delete" placeholder:"CID" help:"Delete comment CID (c1, c2, ...) instead."`
	JSON    bool    `name:"json" help:"Print the comment added or deleted, or the list, as JSON."`
}

// Help is the long help.
func (c *CommentCmd) Help() string {
	return `Keeps a review comment with a task: on the task as a whole, on a file of it (--path), or on lines of that file as the task's result has it (--path P --line N or N-M). Comments are listed by git nudge show and git nudge comment ID --list, and kept until deleted (--delete CID) or the task is dropped.

When the task's command runs again (git nudge run --task ID, the queue, the dashboard), its comments are written to a file and the command finds that file's path in NUDGE_REVIEW: Markdown, one section per comment headed with its place (path:N-M) and id, the commented lines of the result quoted ("> N | text"), then the text. With no comments NUDGE_REVIEW is not set.`
}

// Operation declares the command for the operation log (opcmd.Recorded):
// adding or deleting a comment is recorded; --list changes nothing.
func (c *CommentCmd) Operation() (oplog.Spec, bool) {
	if c.List {
		return oplog.Spec{}, false
	}
	return oplog.Spec{Kind: "comment", Scope: oplog.ScopeTasks, LeavesIndex: true}, true
}

// Run adds, lists or deletes.
func (c *CommentCmd) Run(env *cli.Env) error {
	modes := 0
	for _, on := range []bool{c.List, c.Delete != "", c.Message != nil} {
		if on {
			modes++
		}
	}
	if modes != 1 {
		return &cli.Refusal{What: "git nudge comment needs one of -m TEXT, --list or --delete CID",
			Next: fmt.Sprintf("Add a comment with git nudge comment %s -m TEXT [--path P [--line N[-M]]], list them with --list, delete one with --delete CID.", c.ID)}
	}
	if c.List {
		w, err := readWorkspace(env)
		if err != nil {
			return err
		}
		cs, err := review.Comments(w, c.ID)
		if err != nil {
			return refusal(err)
		}
		if c.JSON {
			return env.JSON(cs)
		}
		if len(cs) == 0 {
			env.Printf("%s has no comments.\n", c.ID)
			return nil
		}
		printComments(env, cs)
		return nil
	}
	w, err := openWorkspace(env)
	if err != nil {
		return err
	}
	if c.Delete != "" {
		got, err := review.DeleteComment(env.Ctx, w, c.ID, c.Delete)
		if err != nil {
			return refusal(err)
		}
		if c.JSON {
			return env.JSON(got)
		}
		env.Printf("Deleted comment %s of %s (%s).\n", got.ID, c.ID, got.Where())
		return nil
	}
	n := review.NewComment{Path: c.Path, Text: *c.Message}
	if c.Line != "" {
		if n.Line, n.EndLine, err = parseLines(c.Line); err != nil {
			return &cli.Refusal{What: "cannot add the comment to " + c.ID, Reasons: []string{err.Error()}, Next: "Give --line N or --line N-M, counted from 1."}
		}
	}
	got, err := review.AddComment(env.Ctx, w, c.ID, n)
	if err != nil {
		return refusal(err)
	}
	if c.JSON {
		return env.JSON(got)
	}
	env.Printf("Added comment %s to %s on %s. The task's next run finds it in the file named by NUDGE_REVIEW.\n", got.ID, c.ID, got.Where())
	return nil
}

// parseLines reads "N" or "N-M".
func parseLines(s string) (int, int, error) {
	a, b, ranged := strings.Cut(s, "-")
	n, err := strconv.Atoi(a)
	if err != nil || n < 1 {
		return 0, 0, fmt.Errorf("--line %q is not a line number or range", s)
	}
	if !ranged {
		return n, 0, nil
	}
	m, err := strconv.Atoi(b)
	if err != nil || m < n {
		return 0, 0, fmt.Errorf("--line %q is not a range N-M with M at least N", s)
	}
	return n, m, nil
}

// printComments lists comments, one block each.
func printComments(env *cli.Env, cs []review.Comment) {
	for _, c := range cs {
		env.Printf("%s  %s  %s\n", env.Paint("1", c.ID), c.Where(), c.Time.Local().Format("2006-01-02 15:04"))
		for _, l := range strings.Split(c.Text, "\n") {
			env.Printf("    %s\n", l)
		}
	}
}
