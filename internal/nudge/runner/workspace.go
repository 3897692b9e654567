// Package runner runs tasks' commands: it prepares a task's worktree
// (start, setup), runs the command there (run), queues commands and works
// through the queue (queue, work), checks a result with the validation
// commands (validate), runs several attempts of one command and compares
// them, confines a command (sandbox) and runs it elsewhere (the runners:
// a container, an ssh host, a command runner). Output is kept in bounded
// logs. It stands on the workspace core (internal/nudge), which records
// tasks, snapshots and results and never calls back into this package.
package runner

import "github.com/nudgethis/git-nudge/internal/nudge"

// workspace is the workspace core with the methods that run tasks.
type workspace struct{ *nudge.Workspace }
