package autodevcmd

import (
	"github.com/nudgethis/git-nudge/internal/autodev"
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/autodevjson"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// CheckpointCmd is `git autodev checkpoint`.
type CheckpointCmd struct {
	Message  string `short:"m" name:"message" placeholder:"POST" help:"The participant's post; its first line labels the checkpoint (thread — <first line>)."`
	Baseline bool   `help:"Commit uncommitted changes as 'autodev: baseline before run'; a clean tree gets no baseline."`
	Task     string `placeholder:"ID" help:"Task the checkpoint belongs to."`
	Mode     string `placeholder:"MODE" help:"Run mode to record with the checkpoint."`
	JSON     bool   `name:"json" help:"Print the result as JSON."`
}

// Help is the long help.
func (c *CheckpointCmd) Help() string {
	return `Commits everything in the work tree except .autodev/ and ignored files (tracked changes, staged or not, and untracked files) on the current branch, authored and committed by autodev <autodev@localhost>, without running any hook and without needing a user identity. The index matches the new commit afterwards. The commit is recorded in .autodev/checkpoints.json and pinned by refs/autodev/checkpoints/<id>; ids are never reused.

Untracked secrets and dumps never ride along: untracked files that git nudge protects (.env and .env.* in any case, nudge.protect and autodev.protect patterns) and untracked files over 16 MiB are left out, listed ("not checkpointed: .env (protected), dump.bin (20 MiB)"; left_out in --json), and left in the work tree; no restore removes them.

With a clean tree, a HEAD commit that is not yet a checkpoint (the participant committed on its own) is recorded as the checkpoint; a HEAD that already is one records nothing. Made while a run is active (by the run's command), the checkpoint takes the run's task and mode unless --task or --mode says otherwise. Outside a git repository, or with git config autodev.checkpoints false, it does nothing, says so and exits 0.`
}

// Operation declares the command for the operation log (opcmd.Recorded).
func (c *CheckpointCmd) Operation() (oplog.Spec, bool) {
	return oplog.Spec{Kind: "checkpoint", Scope: oplog.ScopeCheckpoints}, true
}

// Run makes the checkpoint.
func (c *CheckpointCmd) Run(env *cli.Env) error {
	ws, err := open(env, c.JSON)
	if ws == nil {
		return err
	}
	res, err := ws.Checkpoint(env.Ctx, autodev.CheckpointRequest{
		Post: c.Message, Baseline: c.Baseline, Task: optional(c.Task), Mode: optional(c.Mode), FromRun: true,
	})
	if err != nil {
		return err
	}
	if res.Recovered != nil {
		env.Warnf("git autodev: recorded %s: an interrupted checkpoint had committed and pinned it but not written the journal\n", entryLine(*res.Recovered))
	}
	if res.IndexWarning != nil {
		env.Warnf("git autodev: warning: the checkpoint is committed, but the index could not be updated to match it (%v); run git reset -q to make it match HEAD\n", res.IndexWarning)
	}
	msg := checkpointMessage(res)
	if c.JSON {
		return env.JSON(map[string]any{
			"outcome":    res.Outcome,
			"checkpoint": res.Entry,
			"recovered":  res.Recovered,
			"head":       autodevjson.Nullable(res.Head),
			"message":    msg,
			"left_out":   autodevjson.LeftOut(res.LeftOut),
		})
	}
	env.Printf("%s\n", msg)
	printLeftOut(env, res.LeftOut)
	return nil
}

// printLeftOut lists the untracked files a checkpoint, park or restore's
// parking did not commit, with what they are left for.
func printLeftOut(env *cli.Env, l []autodev.LeftOut) {
	if line := autodev.LeftOutLine(l); line != "" {
		env.Printf("%s (left in the work tree, untracked)\n", line)
	}
}

func checkpointMessage(res autodev.CheckpointResult) string {
	switch res.Outcome {
	case autodev.Committed, autodev.RecordedHead:
		return entryLine(*res.Entry)
	case autodev.Adopted:
		return entryLine(*res.Entry) + " (recorded now: an interrupted checkpoint had committed it but not written the journal)"
	case autodev.AlreadyRecorded:
		return "Nothing to checkpoint: HEAD (" + autodev.Short(res.Head) + ") is already checkpoint " + res.Entry.ID + "."
	case autodev.CleanNoBaseline:
		return "No baseline: the work tree has no uncommitted changes."
	case autodev.NothingYet:
		return "Nothing to checkpoint: there is no commit yet and the work tree is empty."
	case autodev.Disabled:
		return "Checkpoints are off (git config autodev.checkpoints false); nothing was recorded."
	}
	return string(res.Outcome)
}
