package operation

import "github.com/nudgethis/git-nudge/internal/oplog"

// Shared is what a command that both the command line and the dashboard
// run is for the operation log (its kind, scope and what it may change),
// declared once for both: git nudge apply, undo, save, drop and queue, and
// git autodev restore of a checkpoint id. Tool and Args are the caller's.
// ok is false for any other command.
func Shared(tool, kind string) (spec oplog.Spec, ok bool) {
	switch tool + " " + kind {
	case "nudge apply", "nudge undo":
		spec = oplog.Spec{Scope: oplog.ScopeTasks, LeavesIndex: true, FilesHinted: true}
	case "nudge save":
		spec = oplog.Spec{Scope: oplog.ScopeTasks, SetsIndex: true}
	case "nudge drop", "nudge queue":
		spec = oplog.Spec{Scope: oplog.ScopeTasks, LeavesIndex: true}
	case "autodev restore":
		spec = oplog.Spec{Scope: oplog.ScopeCheckpoints, Status: true, Hinted: true}
	default:
		return oplog.Spec{}, false
	}
	spec.Kind = kind
	return spec, true
}
