// Package nudgecmd is git-nudge's command line: one kong struct per command,
// each a thin layer over internal/nudge.
package nudgecmd

import (
	"time"

	"github.com/alecthomas/kong"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/dashboardcmd"
	"github.com/nudgethis/git-nudge/internal/cli/opcmd"
	"github.com/nudgethis/git-nudge/internal/proc"
)

// CLI is the git-nudge command line.
type CLI struct {
	Version kong.VersionFlag `help:"Print the version and exit."`

	Snapshot SnapshotCmd `cmd:"" help:"Record the workspace as a new task's snapshot, without touching it."`
	Start    StartCmd    `cmd:"" help:"Give a task a fresh worktree on its snapshot, set up and ready to work in."`
	Run      RunCmd      `cmd:"" help:"Run a command in a task's worktree and capture the result."`
	Capture  CaptureCmd  `cmd:"" help:"Record a task's worktree (or a commit) as its result."`
	Validate ValidateCmd `cmd:"" help:"Run the git config nudge.validate commands on a task's result."`
	Queue    QueueCmd    `cmd:"" help:"Record a pending task: a command that git nudge work will run."`
	Work     WorkCmd     `cmd:"" help:"Run the pending tasks, in order, until none is left."`
	Diff     DiffCmd     `cmd:"" help:"Show a task's patch, from its snapshot to its result."`
	List     ListCmd     `cmd:"" help:"List the workspace's tasks, newest first."`
	Comment  CommentCmd  `cmd:"" help:"Keep a review comment with a task; its next run reads them from the file NUDGE_REVIEW names."`
	Show     ShowCmd     `cmd:"" help:"Show everything recorded about a task."`
	Compare  CompareCmd  `cmd:"" help:"Set tasks' results side by side: files, lines, validation, time, exit status."`
	Drop     DropCmd     `cmd:"" help:"Remove tasks: each one's worktree, refs, logs and record."`
	Pool     PoolCmd     `cmd:"" help:"List, fill or clear the pool of reusable task worktrees."`
	Apply    ApplyCmd    `cmd:"" help:"Write a ready task's patch onto the work tree (never staged or committed)."`
	Undo     UndoCmd     `cmd:"" help:"Put an applied task's files back as they were before the apply."`
	Refresh  RefreshCmd  `cmd:"" help:"Make a new task whose result is a task's change merged onto the workspace as it is now."`
	Recover  RecoverCmd  `cmd:"" help:"Show where each file of an interrupted apply or undo stands."`
	Save     SaveCmd     `cmd:"" help:"Commit applied tasks as one commit on the current branch, keeping your index."`
	Guard    GuardCmd    `cmd:"" help:"Accept a change to the shared git settings that the guard put back as your own."`
	Du       DuCmd       `cmd:"" help:"Show what git nudge holds on disk, by kind, and the largest tasks."`
	Prune    PruneCmd    `cmd:"" help:"Drop old tasks (never applied, running or Recovery required ones); op undo brings them back."`

	Dashboard dashboardcmd.Cmd `cmd:"" help:"Serve a local page to review, apply, undo and save tasks and restore checkpoints."`
	Op        opcmd.Cmd        `cmd:"" help:"The operation log: list, show and undo what this tool and its sibling did."`

	Completion cli.CompletionCmd `cmd:"" hidden:"" help:"Print a shell completion script."`
}

// Program is git-nudge as the shared runner sees it.
func Program() cli.Program {
	return cli.Program{
		Name: "git-nudge",
		Description: `Snapshot a workspace, let a task change a copy of it, then apply, undo or save the result.

git nudge captures the work tree without touching it, runs a task (a script, a person, an AI coding agent) in a fresh linked worktree, and brings the reviewed patch back only where every affected file is still as it was. Apply and undo never stage, never commit and never touch the index; save turns applied work into one commit.`,
		Model: &CLI{},
		ManSections: []cli.ManSection{{Title: "Files", Text: `.nudgethis/ at the top of the work tree (ignored by git through its own .gitignore): tasks/<id>.json (one record per task), tasks/<id>.comments.json (a task's review comments), worktrees/<id>/ (task worktrees), pool/ (parked task worktrees for reuse, each with the index git-nudge trusts for it and its size), trash/ (worktrees moved aside, deleted once the command has released its locks), logs/<id>/ (bounded command output, and review.md: the comments a run is given as NUDGE_REVIEW), saves.json (the save journal), lock, format (the version of this folder's format), work.lock (held by git nudge work, with its version), server.lock (held by git nudge dashboard), guard.json (the trusted state of the repository's shared git settings: config, hooks, info/, shallow), quarantine/<n>/ (versions of those settings that a task left and git nudge put back), stage/ (files an apply or undo is writing), sandbox/<id>/ (objects a sandboxed command wrote).

Refs shared by all worktrees of the repository: refs/nudgethis/snapshots/<id> and refs/nudgethis/results/<id>; also refs/nudgethis/setup/<id> and refs/nudgethis/validation/<id> (what setup and validation changed in the worktree), refs/nudgethis/undo/<id> (the exact bytes an undo writes back), refs/nudgethis/guard (keeps the trusted settings' contents) and refs/nudgethis/quarantine/<id>/<ref> (refs an unsandboxed run made or moved, moved aside). The operation log of each worktree is refs/nudgethis-oplog/<worktree>. Ordinary pushes do not include them.`}},
		Around:  around,
		Bind:    []any{opcmd.Opener(opOpener)},
		SeeAlso: []string{"git-autodev(1)", "git-worktree(1)", "git-stash(1)", "git-revert(1)"},
	}
}

// TestNowVar fixes the clock for tests (an RFC 3339 time); it is not meant
// for users.
const TestNowVar = "GIT_NUDGE_TEST_NOW"

// Main runs git-nudge with args and returns the exit status.
func Main(args []string, env *cli.Env) int {
	if len(args) > 0 && args[0] == proc.SandboxArg {
		// git-nudge run --sandbox re-executes itself as the helper that
		// confines the command and executes it (never a user command).
		return proc.SandboxMain(args[1:])
	}
	if len(args) > 0 && args[0] == proc.ReapArg {
		// Every command a task runs goes through the reaper, which ends
		// whatever the command left behind when it exits.
		return proc.ReapMain(args[1:])
	}
	if env.Getenv != nil {
		if v := env.Getenv(TestNowVar); v != "" {
			if t, err := time.Parse(time.RFC3339, v); err == nil {
				env.Now = func() time.Time { return t }
			}
		}
	}
	return Program().Main(args, env)
}
