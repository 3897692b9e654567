package opcmd

import (
	"time"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/oneline"
	"github.com/nudgethis/git-nudge/internal/oplog"
	"github.com/nudgethis/git-nudge/internal/retain"
)

// AutoPrune is an automatic prune that a tool's retention setting asks
// for before a command that changes something.
type AutoPrune struct {
	Repo *oplog.Repo
	// Spec is the prune's operation (tool, kind, scope); its Args and
	// DropEmpty are set by Run.
	Spec oplog.Spec
	// Key is the retention setting, Age its value.
	Key string
	Age time.Duration
	// Stamp is set once a prune finished within its budget.
	Stamp retain.Stamp
	// Prune drops what is older than Age; stopped when its budget ran out
	// before it was done.
	Prune func() (dropped []string, stopped bool, err error)
	// Dropped says how many were dropped and by which bound, as in
	// "3 task(s) unchanged for 30d".
	Dropped func(n int, age string) string
	// Failed ends the warning when the prune failed, as in "nothing was
	// pruned".
	Failed string
}

// Run runs the prune as an operation of its own in the log (before the
// command, which stays the latest) and says on stderr, in one line, what
// it dropped, or that it failed: the command goes on either way.
func (a AutoPrune) Run(env *cli.Env) {
	tool := a.Spec.Tool
	spelled := retain.FormatAge(a.Age)
	a.Spec.Args = []string{"prune", "--older-than", spelled}
	a.Spec.DropEmpty = true
	var dropped []string
	var stopped bool
	err := Around(env, Plan{Repo: a.Repo, Spec: a.Spec}, func() error {
		var err error
		dropped, stopped, err = a.Prune()
		return err
	})
	if err != nil {
		env.Warnf("git %s: automatic pruning (%s) failed, %s: %s\n", tool, a.Key, a.Failed, oneline.First(err.Error()))
		return
	}
	if !stopped {
		_ = a.Stamp.Set(env.Now())
	}
	if len(dropped) > 0 {
		env.Warnf("git %s: pruned %s (%s): %s; git %s op log shows it, and op undo of it brings them back\n",
			tool, a.Dropped(len(dropped), spelled), a.Key, cli.JoinIDs(dropped, 5), tool)
	}
}
