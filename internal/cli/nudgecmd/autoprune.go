package nudgecmd

import (
	"fmt"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/opcmd"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/retire"
	"github.com/nudgethis/git-nudge/internal/oplog"
	"github.com/nudgethis/git-nudge/internal/refs"
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
	if err != nil || !retire.PruneStamp(ws).Due(env.Now()) {
		return
	}
	age, err := retire.Retention(env.Ctx, ws)
	if err != nil || age == 0 {
		return
	}
	if !ws.AnyOlder(age) {
		_ = retire.PruneStamp(ws).Set(env.Now())
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
	opcmd.AutoPrune{
		Repo: w.Repo, Spec: oplog.Spec{Tool: "nudge", Kind: "prune", Scope: oplog.ScopeTasks, LeavesIndex: true},
		Key: "nudge.retention", Age: age, Stamp: retire.PruneStamp(w), Failed: "nothing more was pruned",
		Prune: func() ([]string, bool, error) {
			res, err := retire.Prune(env.Ctx, w, retire.PruneOptions{OlderThan: age, Except: except, Budget: autoPruneBudget})
			if err != nil {
				return nil, false, err
			}
			return res.Dropped, res.Stopped, nil
		},
		Dropped: func(n int, age string) string { return fmt.Sprintf("%d task(s) unchanged for %s", n, age) },
	}.Run(env)
}
