package dashboard_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/dashboardcmd"
	"github.com/nudgethis/git-nudge/internal/cli/nudgecmd"
	"github.com/nudgethis/git-nudge/internal/cli/opcmd"
	"github.com/nudgethis/git-nudge/internal/dashboard"
	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/journal"
	nudgepkg "github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/runner"
	"github.com/nudgethis/git-nudge/internal/oplog"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// syncBuffer is a stderr the server and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// served is a dashboard started with Serve (as git nudge dashboard does,
// queue execution included), stopped by stop.
type served struct {
	*harness
	stderr *syncBuffer
	stop   func() error // cancels Serve's context and waits for it
}

func startServe(t *testing.T, dir string, noExecution bool) *served {
	t.Helper()
	return startServeWith(t, dir, dashboard.Options{NoExecution: noExecution})
}

// startServeWith is startServe with the options o (Dir, Shapes and Poll
// set here).
func startServeWith(t *testing.T, dir string, o dashboard.Options) *served {
	t.Helper()
	o.Dir, o.Shapes, o.Poll = dir, dashboardcmd.Shapes(), 20*time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan *dashboard.Server, 1)
	done := make(chan error, 1)
	stderr := &syncBuffer{}
	go func() {
		done <- dashboard.Serve(ctx, o,
			dashboard.ServeOptions{Stdout: &syncBuffer{}, Stderr: stderr, Ready: func(s *dashboard.Server) { ready <- s }})
	}()
	var s *dashboard.Server
	select {
	case s = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("Serve: %v", err)
	}
	var once sync.Once
	var serr error
	stop := func() error {
		once.Do(func() { cancel(); serr = <-done })
		return serr
	}
	t.Cleanup(func() { _ = stop() })
	h := &harness{t: t, dir: dir, srv: s, url: "http://127.0.0.1:" + strconv.Itoa(s.Port())}
	return &served{harness: h, stderr: stderr, stop: stop}
}

// taskState is the state of task id as GET /api/nudge/tasks/{id} says.
func (h *harness) taskState(id string) string {
	h.t.Helper()
	code, _, body := h.do("GET", "/api/nudge/tasks/"+id, true, nil)
	var doc struct{ State string }
	if code != 200 || json.Unmarshal(body, &doc) != nil {
		h.t.Fatalf("GET task %s: %d %s", id, code, body)
	}
	return doc.State
}

// waitState waits (up to a generous bound, so a slow machine does not
// fail it) until task id is in a state of want, and returns it.
func (h *harness) waitState(id string, want ...string) string {
	h.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		st := h.taskState(id)
		for _, w := range want {
			if st == w {
				return st
			}
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("task %s is %s, never %v", id, st, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A task queued while the dashboard runs is run by it.
func TestServerRunsQueuedTasks(t *testing.T) {
	t.Parallel()
	dir := workspace(t)
	s := startServe(t, dir, false)
	nudge(t, dir, "queue", "-m", "from the queue", "--", "sh", "-c", "echo queued > q.txt")
	s.waitState("t2", "ready")
	_, _, body := s.do("GET", "/api/nudge/executor", true, nil)
	if !strings.Contains(string(body), `"executing":true`) {
		t.Fatalf("executor: %s", body)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.stderr.String(), "Queue: t2 started") || !strings.Contains(s.stderr.String(), "Queue: t2 ready") {
		t.Fatalf("stderr: %s", s.stderr)
	}
	// The server's lock named its binary version while it ran; now the
	// executor lock is free for git nudge work.
	if out, code := run(t, nudgecmd.Main, dir, "work"); code != 0 {
		t.Fatalf("git nudge work after the server stopped: %d %s", code, out)
	}
}

// With --max 2 the server runs two queued tasks at once: each waits
// until both have started, so run one after the other the first would
// give up and fail.
func TestServerRunsQueuedTasksAtOnce(t *testing.T) {
	dir := workspace(t)
	barrier := t.TempDir()
	s := startServeWith(t, dir, dashboard.Options{Max: 2})
	both := `touch "` + barrier + `/$NUDGE_TASK"; i=0; while [ $(ls "` + barrier + `" | wc -l) -lt 2 ]; do i=$((i+1)); [ $i -gt 300 ] && exit 9; sleep 0.1; done`
	nudge(t, dir, "queue", "--", "sh", "-c", both)
	nudge(t, dir, "queue", "--", "sh", "-c", both)
	for _, id := range []string{"t2", "t3"} {
		if st := s.waitState(id, "ready", "failed"); st != "ready" {
			t.Fatalf("%s is %s: the two queued tasks did not run at once", id, st)
		}
	}
}

// With --no-execution a queued task stays pending, and the page is told
// why.
func TestServerNoExecutionLeavesQueue(t *testing.T) {
	t.Parallel()
	dir := workspace(t)
	s := startServe(t, dir, true)
	nudge(t, dir, "queue", "--", "sh", "-c", "echo queued > q.txt")
	_, _, body := s.do("GET", "/api/nudge/executor", true, nil)
	if !strings.Contains(string(body), `"executing":false`) || !strings.Contains(string(body), "--no-execution") {
		t.Fatalf("executor: %s", body)
	}
	// Were it executing, it would have looked for the task within a second.
	time.Sleep(2500 * time.Millisecond)
	if st := s.taskState("t2"); st != "pending" {
		t.Fatalf("t2 is %s under --no-execution", st)
	}
}

// Shutdown stops a running queued task with its process group, and the
// task ends failed.
func TestServerShutdownStopsQueuedTask(t *testing.T) {
	t.Parallel()
	dir := workspace(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	s := startServe(t, dir, false)
	// The group's id: the command runs under the reaper, which leads it.
	nudge(t, dir, "queue", "--", "sh", "-c", "cut -d' ' -f5 /proc/$$/stat > "+pidFile+"; sleep 1000 & wait")
	s.waitState("t2", "running")
	var pid int
	deadline := time.Now().Add(60 * time.Second)
	for pid == 0 && time.Now().Before(deadline) {
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		time.Sleep(20 * time.Millisecond)
	}
	if pid == 0 {
		t.Fatal("the queued task never started")
	}
	if err := syscall.Kill(-pid, 0); err != nil {
		t.Fatalf("the task's process group %d: %v", pid, err)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("after shutdown the task's process group %d is still there (%v)", pid, err)
	}
	out := nudge(t, dir, "show", "t2", "--json")
	if !strings.Contains(out, `"state":"failed"`) && !strings.Contains(out, `"state": "failed"`) {
		t.Fatalf("t2 after shutdown: %s", out)
	}
}

// While git nudge work holds the executor lock the server serves without
// executing, and says so.
func TestServerLeavesQueueToOtherExecutor(t *testing.T) {
	t.Parallel()
	dir := workspace(t)
	ws, err := nudgepkg.Open(context.Background(), dir, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	lock, err := runner.AcquireExecutor(context.Background(), ws, "git-nudge work")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	s := startServe(t, dir, false)
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(s.stderr.String(), "Not running queued tasks") {
		if time.Now().After(deadline) {
			t.Fatalf("stderr: %s", s.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, _, body := s.do("GET", "/api/nudge/executor", true, nil)
	if !strings.Contains(string(body), `"executing":false`) || !strings.Contains(string(body), "git-nudge work") {
		t.Fatalf("executor: %s", body)
	}
}

// server.lock names the server's binary version, so a binary of another
// version refuses to change the workspace while it runs.
func TestServerLockCarriesVersion(t *testing.T) {
	dir := workspace(t)
	startServe(t, dir, true)
	lockPath := filepath.Join(dir, ".nudgethis", dashboard.LockName)
	if v := journal.HolderVersion(lockPath); v != journal.BinaryVersion() {
		t.Fatalf("server.lock version %q, want %q", v, journal.BinaryVersion())
	}
	if run, err := dashboard.Find(filepath.Join(dir, ".nudgethis")); err != nil || run == nil || run.PID != os.Getpid() {
		t.Fatalf("Find: %+v %v", run, err)
	}
	old := journal.BinaryVersion()
	journal.SetBinaryVersion(old + "-other")
	defer journal.SetBinaryVersion(old)
	_, err := nudgepkg.Open(context.Background(), dir, time.Now)
	var ov *journal.OtherVersionError
	if !errors.As(err, &ov) {
		t.Fatalf("another version opened the workspace while the server ran: %v", err)
	}
}

// The executor runs beside the page's recorded actions, in one process:
// what it writes (the queued task's record and refs) never reaches the
// recording of an action in progress meanwhile, which would take it for
// its own changes (and put it back on op undo). The action here is
// recorded as the page records one (opcmd.Around), opens its workspace
// from the context it is given, and makes one change of its own while
// the executor finishes t2: that change, and only it, is recorded.
func TestServerExecutorIsNotWatched(t *testing.T) {
	t.Parallel()
	dir := workspace(t)
	s := startServe(t, dir, false)
	gate := filepath.Join(t.TempDir(), "go")
	nudge(t, dir, "queue", "-m", "gated", "--", "sh", "-c", "while [ ! -e '"+gate+"' ]; do sleep 0.05; done; echo queued > q.txt")
	s.waitState("t2", "running")
	ctx := context.Background()
	repo, err := git.Discover(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	head := testutil.Git(t, dir, "rev-parse", "HEAD")
	env := &cli.Env{Ctx: ctx, Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Dir: dir, Getenv: os.Getenv, Now: time.Now}
	err = opcmd.Around(env, opcmd.Plan{Repo: repo, Spec: oplog.Spec{Tool: "nudge", Kind: "drop", Args: []string{"drop", "t9"}, Scope: oplog.ScopeTasks, LeavesIndex: true}}, func() error {
		ws, err := nudgepkg.OpenReadOnly(env.Ctx, dir, time.Now)
		if err != nil {
			return err
		}
		if err := ws.Repo.SetRef(env.Ctx, git.SetRefRequest{Name: "refs/nudgethis/mark", New: head, Old: ws.Repo.ZeroID()}); err != nil {
			return err
		}
		// From here on only the executor writes: its capture of t2,
		// its result ref and record.
		if err := os.WriteFile(gate, nil, 0o644); err != nil {
			return err
		}
		s.waitState("t2", "ready")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ops, err := oplog.Open(repo).Read(ctx)
	if err != nil || len(ops) == 0 {
		t.Fatalf("log: %v, %d ops", err, len(ops))
	}
	op := ops[0]
	if op.Kind != "drop" {
		t.Fatalf("latest operation is %s %v, want the action's drop", op.Kind, op.Args)
	}
	if len(op.Refs) != 1 || op.Refs[0].Name != "refs/nudgethis/mark" || len(op.Journals) != 0 {
		t.Fatalf("the action recorded refs %+v and journals %+v; want only its own refs/nudgethis/mark", op.Refs, op.Journals)
	}
}
