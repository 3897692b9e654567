package runner_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/runner"
)

// Work with Watch keeps the executor lock and runs a task queued after
// it started, until its context is cancelled; a second executor is
// refused meanwhile.
func TestWorkWatch(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "base"}} {
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = append(c.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := nudge.Open(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan runner.WorkEvent, 8)
	done := make(chan *runner.WorkReport, 1)
	go func() {
		rep, err := runner.Work(ctx, w, runner.WorkOptions{Watch: 20 * time.Millisecond, What: "test server",
			Events: func(e runner.WorkEvent) { events <- e }})
		if err != nil {
			t.Error(err)
		}
		done <- rep
		close(events)
	}()
	// Wait until Work holds the executor lock; a second one is refused.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if held, _ := journal.Held(filepath.Join(w.Dir, nudge.WorkLockName)); held {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Work never took the executor lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := runner.AcquireExecutor(ctx, w, "second"); err == nil {
		t.Fatal("a second executor was let in")
	}
	q, err := runner.Queue(ctx, w, runner.QueueOptions{Command: []string{"sh", "-c", "echo hi > hi.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	timeout := time.After(60 * time.Second)
	for waiting := true; waiting; {
		var e runner.WorkEvent
		select {
		case e = <-events:
		case <-timeout:
			t.Fatal("the queued task never ran")
		}
		if e.Kind == "done" {
			if e.ID != q.ID || e.Task == nil || e.Task.State != nudge.StateReady {
				t.Fatalf("done event: %+v", e)
			}
			waiting = false
		}
	}
	cancel()
	rep := <-done
	if rep == nil || len(rep.Ran) != 1 || rep.Ran[0].State != nudge.StateReady {
		t.Fatalf("report: %+v", rep)
	}
}
