package nudgecmd

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/runner"
)

// CompareCmd is `git nudge compare`.
type CompareCmd struct {
	JSON bool     `name:"json" help:"Print one JSON document: [{id, attempt, runner, state, exit_code, seconds, validation, snapshot, result, files: [{path, status, added, deleted, binary}], added, deleted}]."`
	IDs  []string `arg:"" name:"id" placeholder:"ID" help:"The tasks to compare (the attempts of git nudge run --attempts, or any tasks)."`
}

// Help is the long help.
func (c *CompareCmd) Help() string {
	return `Sets the results of tasks side by side: for each its state, the command's exit status and how long it ran, what validation found, and the lines added and deleted; then every file any of them changed, with what each task did to it (+added -deleted, "bin" for a binary file, "." when the task left it alone). It only reads. Review one with git nudge diff ID and apply it with git nudge apply ID: the others stay as they are.`
}

// Run compares the tasks.
func (c *CompareCmd) Run(env *cli.Env) error {
	w, err := openWorkspace(env)
	if err != nil {
		return err
	}
	cmp, err := runner.Compare(env.Ctx, w, c.IDs)
	if err != nil {
		return refusal(err)
	}
	if c.JSON {
		return env.JSON(cmp)
	}
	env.Printf("%-8s %-8s %-9s %-6s %-8s %-10s %s\n", "TASK", "ATTEMPT", "STATE", "EXIT", "TIME", "VALIDATION", "LINES")
	for _, t := range cmp {
		attempt, exit, secs := "-", "-", "-"
		if t.Attempt > 0 {
			attempt = fmt.Sprint(t.Attempt)
		}
		if t.ExitCode != nil {
			exit = fmt.Sprint(*t.ExitCode)
		}
		if t.Seconds != nil {
			secs = fmt.Sprintf("%.1fs", *t.Seconds)
		}
		env.Printf("%-8s %-8s %-9s %-6s %-8s %-10s +%d -%d in %s\n", t.ID, attempt, nudge.StateLabel(t.State), exit, secs, t.Validation, t.Added, t.Deleted, countFiles(len(t.Files)))
	}
	files := map[string]map[string]runner.ComparedFile{}
	for _, t := range cmp {
		for _, f := range t.Files {
			if files[f.Path] == nil {
				files[f.Path] = map[string]runner.ComparedFile{}
			}
			files[f.Path][t.ID] = f
		}
	}
	if len(files) == 0 {
		return nil
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	env.Printf("\n")
	head := []string{fmt.Sprintf("%-14s", "FILE")}
	for _, t := range cmp {
		head = append(head, fmt.Sprintf("%-12s", t.ID))
	}
	env.Printf("%s\n", strings.TrimRight(strings.Join(head, " "), " "))
	for _, p := range paths {
		row := []string{fmt.Sprintf("%-14s", nudge.QuotePath(p))}
		for _, t := range cmp {
			cell := "."
			if f, ok := files[p][t.ID]; ok {
				switch {
				case f.Binary:
					cell = f.Status + " bin"
				default:
					cell = fmt.Sprintf("%s +%d -%d", f.Status, f.Added, f.Deleted)
				}
			}
			row = append(row, fmt.Sprintf("%-12s", cell))
		}
		env.Printf("%s\n", strings.TrimRight(strings.Join(row, " "), " "))
	}
	return nil
}
