package autodevcmd

import (
	"fmt"

	"github.com/nudgethis/git-nudge/internal/autodev"
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/autodevjson"
)

// StatusCmd is `git autodev status`.
type StatusCmd struct {
	JSON bool `name:"json" help:"Print the status as JSON."`
}

// Help is the long help.
func (c *StatusCmd) Help() string {
	return `Shows the run state from .autodev/state.json (and whether a process really holds .autodev/run.lock), how many checkpoints there are, and which one HEAD is at. When no run is active and there are checkpoints, it offers them as restore points. When checkpoints.json is missing, it says how many checkpoints git autodev restore --rebuild can recover from history. An autodev/pre-restore-* branch whose commit no checkpoint records (a restore that parked the work, then failed or was killed) is named, and so are files a killed git-autodev left in the git dir (a private index, an index.lock of its own, which the next checkpoint, park or restore removes) and a .git/index.lock that is not autodev's.`
}

// Run prints the status.
func (c *StatusCmd) Run(env *cli.Env) error {
	ws, err := open(env, c.JSON)
	if ws == nil {
		return err
	}
	rep, err := ws.Status(env.Ctx)
	if err != nil {
		return err
	}
	if c.JSON {
		return env.JSON(autodevjson.Status(rep))
	}
	env.Printf("%s\n", runLine(rep))
	env.Printf("%s\n", checkpointsLine(rep))
	if n := rep.RestorePoints(); n > 0 {
		env.Printf("%d restore point(s) — rewind now that the run is stopped\n", n)
	}
	for _, p := range rep.Unrecorded {
		env.Printf("Parked work not in the checkpoint list: %s (%s), left by a restore that did not finish\n", p.Branch, autodev.Short(p.Commit))
	}
	for _, l := range rep.Leftovers {
		next := ""
		if l.Removable {
			next = "; the next checkpoint, park or restore removes it"
		}
		env.Printf("Leftover: %s%s\n", l.Describe(), next)
	}
	if rep.IndexLock != "" {
		env.Printf("Index locked: %s exists and is not autodev's: a git command is changing the index, or one was killed; restore refuses until it is gone (remove it if no git command is running)\n", rep.IndexLock)
	}
	if rep.RefLock != "" {
		env.Printf("HEAD locked: %s exists: a git command is moving HEAD or its branch, or one was killed while it did; restore refuses until it is gone (remove it if no git command is running)\n", rep.RefLock)
	}
	return nil
}

func runLine(rep autodev.Report) string {
	st := rep.State
	if rep.Stale {
		return "Run: interrupted (state.json says running, but no process holds .autodev/run.lock)"
	}
	s := "Run: " + st.Status
	if rep.Active {
		s = "Run: running"
		pid := rep.RunPID
		if st.PID != nil {
			pid = *st.PID
		}
		switch {
		case rep.Orphaned:
			s += fmt.Sprintf(" (git-autodev process %d has ended, but the command it started still holds .autodev/run.lock)", rep.RunPID)
		case pid > 0:
			s += fmt.Sprintf(" (pid %d)", pid)
		}
	}
	if st.Mode != nil {
		s += ", mode " + *st.Mode
	}
	if st.CurrentTask != nil {
		s += ", task " + *st.CurrentTask
	}
	if st.Since != "" {
		s += ", since " + st.Since
	}
	return s
}

func checkpointsLine(rep autodev.Report) string {
	switch {
	case !rep.Enabled:
		return "Checkpoints: off (git config autodev.checkpoints false)"
	case rep.Missing && rep.History > 0:
		return "Checkpoints: no checkpoints.json, but " + rebuildOffer(rep.History)
	case rep.Checkpoints == 0:
		return "Checkpoints: none yet"
	case rep.HeadEntry != nil:
		return fmt.Sprintf("Checkpoints: %d; HEAD is at %s", rep.Checkpoints, entryLine(*rep.HeadEntry))
	case rep.Head == "":
		return fmt.Sprintf("Checkpoints: %d; HEAD has no commit", rep.Checkpoints)
	}
	return fmt.Sprintf("Checkpoints: %d; HEAD (%s) is not at a checkpoint", rep.Checkpoints, autodev.Short(rep.Head))
}
