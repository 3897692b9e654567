package nudgecmd

import (
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/opcmd"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/oplog"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/retain"
)

// autoPrune applies nudge.retention before a command that changes
// something, at most once a day (.nudgethis/prune-stamp), within
// autoPruneBudget: what is left is pruned by the next command. It never
// drops a task the command names, nor one prune itself keeps, and says on
// stderr, in one line, what it dropped. It is its own operation in the
// log, so op undo of it brings the tasks back; it runs before the command
// so that the command stays the latest operation.
func autoPrune(env *cli.Env, command string, args []string) {
	if command == "prune" {
		return
	}
	ws, err := nudge.OpenReadOnly(env.Ctx, env.Dir, env.Now)
	if err != nil || !ws.PruneStamp().Due(env.Now()) {
		return
	}
	age, err := ws.Retention(env.Ctx)
	if err != nil || age == 0 {
		return
	}
	if !ws.AnyOlder(age) {
		_ = ws.PruneStamp().Set(env.Now())
		return
	}
	w, err := nudge.Open(env.Ctx, env.Dir, env.Now)
	if err != nil {
		return
	}
	var except []string
	for _, a := range opcmd.Positionals(args) {
		if refs.Task.Valid(a) {
			except = append(except, a)
		}
	}
	spelled := retain.FormatAge(age)
	var res *nudge.PruneResult
	plan := opcmd.Plan{Repo: w.Repo, Spec: oplog.Spec{Tool: "nudge", Kind: "prune", Scope: oplog.ScopeTasks, LeavesIndex: true, Args: []string{"prune", "--older-than", spelled}, DropEmpty: true}}
	err = opcmd.Around(env, plan, func() error {
		var err error
		res, err = w.Prune(env.Ctx, nudge.PruneOptions{OlderThan: age, Except: except, Budget: autoPruneBudget})
		return err
	})
	if err != nil {
		env.Warnf("git nudge: automatic pruning (nudge.retention) failed, nothing more was pruned: %s\n", firstLineOf(err.Error()))
		return
	}
	if !res.Stopped {
		_ = w.PruneStamp().Set(env.Now())
	}
	if len(res.Dropped) > 0 {
		env.Warnf("git nudge: pruned %d task(s) unchanged for %s (nudge.retention): %s; git nudge op log shows it, and op undo of it brings them back\n",
			len(res.Dropped), spelled, cli.JoinIDs(res.Dropped, 5))
	}
}

func firstLineOf(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}
