package autodevcmd

import (
	"errors"
	"strings"

	"github.com/nudgethis/git-nudge/internal/agenthooks"
	"github.com/nudgethis/git-nudge/internal/autodev"
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/autodevjson"
	"github.com/nudgethis/git-nudge/internal/operation"
	"github.com/nudgethis/git-nudge/internal/oplog"
	"github.com/nudgethis/git-nudge/internal/pathenc"
)

// RestoreCmd is `git autodev restore`.
type RestoreCmd struct {
	ID        string `arg:"" predictor:"checkpoint" optional:"" help:"Checkpoint to restore: its id (c3) or a commit prefix of at least 7 hex digits. Without it, list the checkpoints."`
	AnyBranch bool   `name:"any-branch" help:"Restore a checkpoint that was made on another branch than the current one, resetting the current branch to it (refused otherwise)."`
	Rebuild   bool   `help:"Rebuild a missing .autodev/checkpoints.json from history (autodev commits, checkpoint refs and autodev/pre-restore-* branches). A corrupt one is never replaced: move it aside first."`
	JSON      bool   `name:"json" help:"Print the result as JSON."`
}

// Help is the long help.
func (c *RestoreCmd) Help() string {
	return `Without an id, lists the checkpoints newest first: id, mark (─ baseline, ✔ task, ⤿ pre-restore), label, task, short commit, mode and age; the checkpoint HEAD is at ends with "← HEAD".

With an id, rewinds the project to that checkpoint: uncommitted work (tracked changes, staged or not, and untracked files that are not ignored, except the protected and over-16-MiB ones a checkpoint leaves out, which stay where they are) is first committed onto a new branch autodev/pre-restore-<time>, then the current branch is reset --hard to the checkpoint and the untracked files that were parked and that the checkpoint lacks are removed. A pre-restore checkpoint records the replaced work (and the index, when it differs from the work tree), so restoring it undoes the restore: the branch goes back to where it was and the work comes back uncommitted, staged as it was. A checkpoint made on another branch than the current one is refused unless --any-branch is given. Restoring the checkpoint HEAD is already at, with nothing uncommitted, changes nothing and says so. Refused while a run is active. Only git state is rewound: .autodev/ is not, and memory.md gains a RESTORE: line.`
}

// Operation declares the command for the operation log (opcmd.Recorded):
// a restore may change any file of the work tree, and tells the recording
// what it is about to change (Recording.Changing); a rebuild writes the
// journal; the list changes nothing.
func (c *RestoreCmd) Operation() (oplog.Spec, bool) {
	if c.ID == "" && !c.Rebuild {
		return oplog.Spec{}, false
	}
	spec, ok := operation.Shared("autodev", "restore")
	spec.Hinted = !c.Rebuild // a rebuild names no checkpoint
	return spec, ok
}

// Run lists, rebuilds or restores.
func (c *RestoreCmd) Run(env *cli.Env) error {
	ws, err := open(env, c.JSON)
	if ws == nil {
		return err
	}
	switch {
	case c.Rebuild && c.ID != "":
		return cli.UsageError(errors.New("--rebuild takes no checkpoint id"))
	case c.Rebuild:
		j, err := ws.Rebuild(env.Ctx)
		if err != nil {
			return err
		}
		if !c.JSON {
			env.Printf("Rebuilt %s: %s.\n", ws.CheckpointsPath(), count(len(j.Entries), "checkpoint", "checkpoints"))
		}
		return c.list(env, ws)
	case c.ID == "":
		return c.list(env, ws)
	}
	return c.restore(env, ws)
}

func (c *RestoreCmd) list(env *cli.Env, ws *autodev.Workspace) error {
	l, err := ws.List(env.Ctx)
	if err != nil {
		return err
	}
	var note string
	switch {
	case !l.Enabled:
		note = "Checkpoints are off (git config autodev.checkpoints false); there is nothing to list."
	case l.Missing && l.History > 0:
		note = "No checkpoints.json, but " + rebuildOffer(l.History)
	case len(l.Entries) == 0:
		note = "No checkpoints yet."
	}
	if c.JSON {
		if note != "" {
			env.Warnf("%s\n", note)
		}
		return writeListJSON(env, l)
	}
	if note != "" {
		env.Printf("%s\n", note)
		return nil
	}
	now := env.Now()
	var b strings.Builder
	b.Grow(len(l.Entries) * 96)
	for i, e := range l.Entries {
		b.WriteString(autodev.Line(e, now, i == l.HeadIndex))
		b.WriteByte('\n')
	}
	env.Printf("%s", b.String())
	return nil
}

func writeListJSON(env *cli.Env, l *autodev.Listing) error {
	return env.JSON(autodevjson.List(l))
}

func (c *RestoreCmd) restore(env *cli.Env, ws *autodev.Workspace) error {
	opts := autodev.RestoreOptions{AnyBranch: c.AnyBranch}
	if rec := oplog.RecordingFrom(env.Ctx); rec != nil {
		// The restore captures the work tree once; the operation log
		// records from that capture (no walk of its own).
		opts.BeforeReset = rec.Changing
	}
	res, err := ws.RestoreWith(env.Ctx, c.ID, opts)
	var re *autodev.RestoreError
	var ra *autodev.RunActiveError
	if errors.As(err, &re) || errors.As(err, &ra) {
		return exitQuiet(env, err.Error())
	}
	if err != nil {
		return err
	}
	if c.JSON {
		return env.JSON(autodevjson.Restore(res))
	}
	switch {
	case res.Unchanged:
		env.Printf("Already at \"%s\" (%s); nothing to restore.\n", res.Target.Label, autodev.Short(res.Target.Commit))
	case res.Parked.Branch != "":
		env.Printf("Restored to \"%s\" (%s); saved on %s.\n", res.Target.Label, autodev.Short(res.Target.Commit), res.Parked.Branch)
	default:
		env.Printf("Restored to \"%s\" (%s).\n", res.Target.Label, autodev.Short(res.Target.Commit))
	}
	if res.Base != "" {
		env.Printf("HEAD is back at %s, with the parked work uncommitted and the index as it was.\n", autodev.Short(res.Base))
	}
	printResume(env, res.Target)
	printLeftOut(env, res.Parked.LeftOut)
	return nil
}

// printResume says how to take the agent's conversation back to the
// checkpoint's turn too, when an agent's hook made it.
func printResume(env *cli.Env, e autodev.Entry) {
	s := e.Session
	if s == nil || s.ID == "" {
		return
	}
	title := "the agent"
	if a, ok := agenthooks.Find(s.Agent); ok {
		title = a.Title
	}
	if cmd := s.Resume(); cmd != "" {
		env.Printf("The checkpoint was made in %s session %s. To take the conversation back as well, resume it and rewind it to that turn:\n\n    %s\n\n", title, pathenc.Text(s.ID), pathenc.Text(cmd))
	} else {
		env.Printf("The checkpoint was made in %s session %s.\n", title, pathenc.Text(s.ID))
	}
	if s.Transcript != "" {
		env.Printf("Transcript: %s\n", pathenc.Text(s.Transcript))
	}
}
