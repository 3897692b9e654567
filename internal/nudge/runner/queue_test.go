package runner_test

import (
	"context"
	"os"
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

// A task of Work --max 2 whose start finds the workspace lock held the
// whole wait while another task of the call runs (a long snapshot or
// record on a busy machine) is tried again rather than ending the run:
// both tasks end ready. Here the test holds the lock while the first
// task's command runs and the second one starts.
func TestWorkTriesAgainWhileItsTasksHoldTheLock(t *testing.T) {
	ctx := context.Background()
	w := shortWaitWorkspace(t)
	barrier := t.TempDir()
	started, goFile := filepath.Join(barrier, "started"), filepath.Join(barrier, "go")
	first, err := runner.Queue(ctx, w, runner.QueueOptions{Command: []string{"sh", "-c", `touch "$1"; while [ ! -e "$2" ]; do sleep 0.05; done; echo one > one.txt`, "sh", started, goFile}})
	if err != nil {
		t.Fatal(err)
	}
	second, err := runner.Queue(ctx, w, runner.QueueOptions{Command: []string{"sh", "-c", "echo two > two.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan struct{})
	again, secondDone := make(chan struct{}, 4), make(chan struct{}, 1)
	events := func(e runner.WorkEvent) {
		switch {
		case e.Kind == "start" && e.ID == second.ID:
			<-held // the second task starts only once the test holds the lock
		case e.Kind == "again" && e.ID == second.ID:
			select {
			case again <- struct{}{}:
			default:
			}
		case e.Kind == "done" && e.ID == second.ID:
			secondDone <- struct{}{}
		}
	}
	done := make(chan *runner.WorkReport, 1)
	go func() {
		rep, err := runner.Work(ctx, w, runner.WorkOptions{Max: 2, Events: events})
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s never happened", what)
			}
		}
	}
	waitFor("the first task's command started", func() bool { _, err := os.Stat(started); return err == nil })
	l, err := w.Lock(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	close(held)
	select {
	case <-again:
	case rep := <-done:
		l.Release()
		t.Fatalf("Work ended while the first task ran: %+v", rep)
	case <-time.After(60 * time.Second):
		t.Fatal("the second task was never put back")
	}
	l.Release()
	// The first task ends only after the second one has: with the short
	// wait set here, their records would otherwise contend.
	select {
	case <-secondDone:
	case <-time.After(60 * time.Second):
		t.Fatal("the second task never ended")
	}
	if err := os.WriteFile(goFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rep := <-done
	states := map[string]string{}
	for _, r := range rep.Ran {
		states[r.ID] = r.State
	}
	if len(rep.Ran) != 2 || states[first.ID] != nudge.StateReady || states[second.ID] != nudge.StateReady || rep.Pending != 0 {
		for _, r := range rep.Ran {
			if r.Error != nil {
				t.Errorf("%s: %s", r.ID, *r.Error)
			}
		}
		t.Fatalf("report: %+v", rep)
	}
}

// A task's command that ends while another process holds the workspace
// lock for longer than a command about to begin would wait still has its
// outcome recorded once the lock is free: the run waits RecordWait, not
// LockTimeout, and the task ends ready with the command's file.
func TestRunRecordsAfterALongHeldLock(t *testing.T) {
	ctx := context.Background()
	w := shortWaitWorkspace(t)
	barrier := t.TempDir()
	started, goFile := filepath.Join(barrier, "started"), filepath.Join(barrier, "go")
	type outcome struct {
		task *nudge.Task
		code int
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		task, code, err := runner.Run(ctx, w, runner.RunOptions{Command: []string{"sh", "-c",
			`touch "$1"; while [ ! -e "$2" ]; do sleep 0.05; done; echo one > one.txt`, "sh", started, goFile}})
		done <- outcome{task, code, err}
	}()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
	}
	l, err := w.Lock(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// Held for many times LockTimeout after the command ended.
	time.Sleep(10 * nudge.LockTimeout)
	l.Release()
	select {
	case o := <-done:
		if o.err != nil || o.code != 0 || o.task == nil || o.task.State != nudge.StateReady {
			t.Fatalf("run: code %d, err %v, task %+v", o.code, o.err, o.task)
		}
		if len(o.task.Files) != 1 {
			t.Fatalf("result files: %+v", o.task.Files)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the run never ended")
	}
}

// shortWaitWorkspace is the workspace of a new repository with one empty
// commit, with nudge.LockTimeout set to 200 ms until the test ends (so
// the test must not run in parallel).
func shortWaitWorkspace(t *testing.T) *nudge.Workspace {
	t.Helper()
	old := nudge.LockTimeout
	t.Cleanup(func() { nudge.LockTimeout = old })
	nudge.LockTimeout = 200 * time.Millisecond
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "base"}} {
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = append(c.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	w, err := nudge.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return w
}
