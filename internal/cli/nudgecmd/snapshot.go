package nudgecmd

import (
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/take"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// SnapshotCmd is `git nudge snapshot`.
type SnapshotCmd struct {
	Message string `short:"m" name:"message" placeholder:"NOTE" help:"A note to remember the task by."`
	JSON    bool   `name:"json" help:"Print the result as one JSON document."`
}

// Help is the long help.
func (c *SnapshotCmd) Help() string {
	return `Records the workspace as it is now (tracked files with their local edits, staged or not, and untracked files) as a new task's snapshot, without touching the index, HEAD, the branch or any file. Ignored files, untracked dependency folders (node_modules, .venv, venv, __pycache__, .tox, bower_components and git config nudge.skipDir), untracked files over 16 MiB and protected paths (.git, .nudgethis, .autodev, .env, .worktreeinclude and git config nudge.protect patterns, matched in any case) are left out and listed. A clean workspace's snapshot is HEAD's own commit; otherwise a commit on top of HEAD by "nudge <nudge@localhost>", kept alive by refs/nudgethis/snapshots/<id>. More untracked files than git config nudge.maxUntracked (default 10000) is refused.`
}

// SnapshotJSON is the --json document of snapshot, which scripts rely on.
type SnapshotJSON struct {
	ID       string            `json:"id"`
	Snapshot string            `json:"snapshot"`
	Clean    bool              `json:"clean"`
	Branch   *string           `json:"branch"`
	Head     *string           `json:"head"`
	Skipped  nudge.SkippedList `json:"skipped"`
	Note     string            `json:"note"`
}

// Operation declares the command for the operation log (opcmd.Recorded).
func (c *SnapshotCmd) Operation() (oplog.Spec, bool) {
	return oplog.Spec{Kind: "snapshot", Scope: oplog.ScopeSnapshot, LeavesIndex: true}, true
}

// Run takes the snapshot.
func (c *SnapshotCmd) Run(env *cli.Env) error {
	w, err := openWorkspace(env)
	if err != nil {
		return err
	}
	t, err := take.Snapshot(env.Ctx, w, c.Message)
	if err != nil {
		return refusal(err)
	}
	if c.JSON {
		return env.JSON(SnapshotJSON{ID: t.ID, Snapshot: t.Snapshot, Clean: t.Clean, Branch: t.Branch, Head: t.Head, Skipped: t.Skipped, Note: t.Note})
	}
	printSnapshot(env, t)
	return nil
}

func printSnapshot(env *cli.Env, t *nudge.Task) {
	state := "dirty: local changes captured in a new commit"
	switch {
	case t.Clean && t.Head == nil:
		state = "clean: nothing to capture on this unborn branch"
	case t.Clean:
		state = "clean: HEAD's own commit"
	}
	env.Printf("%s %s (%s)\n", env.Paint("1", t.ID), t.Snapshot, state)
	if len(t.Skipped) > 0 {
		env.Printf("Skipped %d path(s):\n", len(t.Skipped))
		for _, s := range t.Skipped {
			env.Printf("  %s  (%s)\n", displayPath(s.Path), s.Reason)
		}
	}
}
