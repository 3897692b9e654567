package retire

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/proc"
)

// remoteStopWait bounds how long a drop waits for a task running on a
// runner to end once its command was asked to stop; remoteKillAfter is
// when SIGTERM turns into SIGKILL.
const (
	remoteStopWait  = 60 * time.Second
	remoteKillAfter = 15 * time.Second
)

// stoppableRemote reports whether t is running on a runner with the
// git-nudge process that runs it alive: a drop can then stop the run
// (stopRemoteRuns) instead of refusing. Nothing of t's result is in the
// workspace while it runs, and the work itself is elsewhere.
func stoppableRemote(w *nudge.Workspace, t *nudge.Task) bool {
	if t.State != nudge.StateRunning || t.Runner == "" || t.PID == nil || proc.Gone(*t.PID) || !w.Busy(t.ID) {
		return false
	}
	return t.CommandPID == nil || !proc.Gone(*t.CommandPID)
}

// stopRemoteRuns asks the runs of ids (stoppableRemote, the workspace
// lock not held) to stop and waits until each has recorded its end: the
// command git-nudge started for the runner (the engine's client, the ssh
// connection, the command runner) is sent SIGTERM, its process group
// when it leads one. The runner's own cleanup does the rest: the engine
// stops and removes the container; over ssh the far side ends the
// command's session when the connection goes, and the run then removes
// the worktree there. A command not yet started (the snapshot still
// travelling) is signalled as soon as its pid is recorded.
func stopRemoteRuns(ctx context.Context, w *nudge.Workspace, ids []string) error {
	asked := map[string]time.Time{}
	killed := map[string]bool{}
	deadline := time.Now().Add(remoteStopWait)
	for {
		var left []string
		for _, id := range ids {
			if !w.Busy(id) {
				continue
			}
			left = append(left, id)
			t, err := w.Load(id)
			if err != nil || t.CommandPID == nil {
				continue
			}
			pid := *t.CommandPID
			switch at, ok := asked[id]; {
			case !ok:
				signalCommand(pid, syscall.SIGTERM)
				asked[id] = time.Now()
			case !killed[id] && time.Since(at) > remoteKillAfter:
				signalCommand(pid, syscall.SIGKILL)
				killed[id] = true
			}
		}
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return &nudge.RefusedError{
				What:    "cannot drop " + strings.Join(left, ", "),
				Reasons: []string{fmt.Sprintf("asked to stop, the run still had not ended after %s", remoteStopWait)},
				Next:    "Nothing was dropped. See git nudge list; try the drop again once the task is no longer running.",
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// signalCommand sends sig to the process group pid leads, or to pid
// alone when it leads none (its reaper passes SIGTERM on).
func signalCommand(pid int, sig syscall.Signal) {
	if pgid, err := syscall.Getpgid(pid); err == nil && pgid == pid {
		_ = syscall.Kill(-pid, sig)
		return
	}
	_ = syscall.Kill(pid, sig)
}
