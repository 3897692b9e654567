//go:build unix

package tests

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/nudge"
)

// TestCrashRandomKillWork is the random-kill loop for the queue: git
// nudge work runs eight queued tasks and is SIGKILLed (with every git
// process it started) after a random delay, again and again. After each
// kill, once the killed task's command has ended too: every task still
// has its record, each is pending (no snapshot yet), ready, or failed
// with the phase it was interrupted in; no task is lost or run twice
// (a ready task's result is exactly its own command's work); and the
// workspace's files are untouched. A last uninterrupted work runs what
// is left pending.
func TestCrashRandomKillWork(t *testing.T) {
	if testing.Short() {
		t.Skip("the random-kill loop is skipped with -short")
	}
	t.Parallel()
	s := newFastSandbox(t)
	s.write(map[string]*spec{"a.txt": file("a\n")})
	s.commitAll("base")
	const n = 8
	for i := 1; i <= n; i++ {
		s.ok(s.nudge("queue", "--", "sh", "-c", fmt.Sprintf("echo %d > out%d.txt; sleep 0.05", i, i)), "queue")
	}
	pic0 := s.picture()

	start := time.Now()
	seed := uint64(start.UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed>>9))
	loops := 0
	for ; loops < 12; loops++ {
		pending := s.workStates(t, n)[nudge.StatePending]
		if pending == 0 {
			break
		}
		delay := time.Duration(rng.Int64N(int64(600 * time.Millisecond)))
		s.killAfter(delay, "git-nudge", "work")
		// The killed task's command (in a group of its own) ends within
		// moments; until then the task may stay running.
		deadline := time.Now().Add(20 * time.Second)
		for {
			st := s.workStates(t, n)
			if st[nudge.StateRunning]+st[nudge.StatePreparing]+st[nudge.StateValidating] == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("loop %d: tasks still busy long after the kill: %v", loops, st)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if d := diffPictures(pic0, s.picture(), nil); len(d) > 0 {
			t.Fatalf("loop %d: the workspace changed: %v", loops, d)
		}
	}
	s.ok(s.nudge("work"), "the last work")
	st := s.workStates(t, n)
	if st[nudge.StatePending] != 0 || st[nudge.StateReady]+st[nudge.StateFailed] != n {
		t.Fatalf("after the last work: %v", st)
	}
	t.Logf("%d kills; final states %v", loops, st)
}

// workStates checks every queued task's record (see
// TestCrashRandomKillWork) and counts them by state.
func (s *sandbox) workStates(t *testing.T, n int) map[string]int {
	t.Helper()
	r := s.ok(s.nudge("list", "--json"), "list")
	var tasks []nudge.Task
	if err := json.Unmarshal([]byte(r.stdout), &tasks); err != nil {
		t.Fatal(err)
	}
	if len(tasks) != n {
		t.Fatalf("%d task records, want %d: %s", len(tasks), n, r.stdout)
	}
	counts := map[string]int{}
	for _, tk := range tasks {
		counts[tk.State]++
		switch tk.State {
		case nudge.StatePending:
			if tk.Snapshot != "" || tk.Worktree != nil {
				t.Fatalf("%s is pending but has a snapshot or worktree: %+v", tk.ID, tk)
			}
		case nudge.StateReady:
			var want string
			fmt.Sscanf(tk.ID, "t%s", &want)
			if len(tk.Files) != 1 || tk.Files[0].Path != "out"+want+".txt" {
				t.Fatalf("%s is ready with files %+v", tk.ID, tk.Files)
			}
		case nudge.StateFailed:
			if tk.Error == nil || !strings.HasPrefix(*tk.Error, "interrupted during ") {
				t.Fatalf("%s failed without naming the phase it was interrupted in: %+v", tk.ID, tk.Error)
			}
		case nudge.StatePreparing, nudge.StateRunning, nudge.StateValidating:
		default:
			t.Fatalf("%s is %s", tk.ID, tk.State)
		}
	}
	return counts
}
