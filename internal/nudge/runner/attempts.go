package runner

import (
	"context"
	"fmt"
	"os"
	"sort"
	"sync"

	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/take"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// MaxAttempts bounds run --attempts.
const MaxAttempts = 32

// Attempt is how one of run --attempts ended.
type Attempt struct {
	N    int
	Task *nudge.Task
	Code int
	Err  error
}

// RunAttempts takes one snapshot and runs o.Command in n tasks made from
// it, all at once (on o.On's runner, or here), each seeing its number
// in NUDGE_ATTEMPT; their output goes only to their run logs. started is
// told each task before the runs begin. Signals from o.Signals reach
// every attempt's command.
func RunAttempts(ctx context.Context, ws *nudge.Workspace, o RunOptions, n int, started func(Attempt)) ([]Attempt, error) {
	w := workspace{ws}
	if n < 1 || n > MaxAttempts {
		return nil, fmt.Errorf("--attempts %d: give a number from 1 to %d", n, MaxAttempts)
	}
	if o.TaskID != "" {
		return nil, &nudge.RefusedError{What: "cannot run attempts in " + o.TaskID, Reasons: []string{"attempts are new tasks made from one new snapshot"},
			Next: "Leave out --task: git nudge run --attempts N -- CMD"}
	}
	name, err := RunnerName(ctx, w.Workspace, o.On)
	if err != nil {
		return nil, err
	}
	runner, err := w.planRunner(ctx, name)
	if err != nil {
		return nil, err
	}
	if _, err := w.planRunnerSandbox(ctx, runner, o.Sandbox, o.Environ); err != nil {
		return nil, err
	}
	first, err := take.Snapshot(ctx, w.Workspace, o.Note)
	if err != nil {
		return nil, err
	}
	tasks := []*nudge.Task{first}
	for len(tasks) < n {
		t, err := w.copySnapshot(ctx, first)
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, t)
	}
	out := make([]Attempt, n)
	chans := make([]chan os.Signal, n)
	for i := range chans {
		chans[i] = make(chan os.Signal, 4)
	}
	done := make(chan struct{})
	defer close(done)
	if o.Signals != nil {
		go func() {
			for {
				select {
				case <-done:
					return
				case s := <-o.Signals:
					for _, c := range chans {
						select {
						case c <- s:
						default:
						}
					}
				}
			}
		}()
	}
	for i, t := range tasks {
		if started != nil {
			started(Attempt{N: i + 1, Task: t})
		}
	}
	var wg sync.WaitGroup
	gate := newStartGate(n)
	for i, t := range tasks {
		ro := o
		ro.TaskID, ro.Attempt, ro.On = t.ID, i+1, name
		if name == "" {
			ro.On = "local"
		}
		ro.Signals, ro.Skip, ro.Group = chans[i], nil, true
		ro.siblings = gate
		ro.Stdin, ro.Stdout, ro.Stderr = nil, nil, nil
		wg.Add(1)
		go func() {
			defer wg.Done()
			rt, code, err := Run(ctx, w.Workspace, ro)
			if rt == nil {
				rt = t
			}
			out[i] = Attempt{N: i + 1, Task: rt, Code: code, Err: err}
		}()
	}
	wg.Wait()
	return out, nil
}

// copySnapshot makes a new task on src's snapshot: its own id and
// snapshot ref on the same commit, the same rules.
func (w workspace) copySnapshot(ctx context.Context, src *nudge.Task) (*nudge.Task, error) {
	l, err := w.Lock(ctx, "git-nudge run")
	if err != nil {
		return nil, err
	}
	defer l.Release()
	next, err := w.NextTaskNumber()
	if err != nil {
		return nil, err
	}
	high, err := refs.Task.HighestUnmarked(ctx, w.Repo)
	if err != nil {
		return nil, err
	}
	id, err := refs.Task.AllocateFrom(ctx, w.Repo, src.Snapshot, max(next, high+1))
	if err != nil {
		return nil, err
	}
	t := &nudge.Task{
		ID: id, State: nudge.StateSnapshotted, Note: src.Note, Created: w.Now().UTC(),
		Workspace: src.Workspace, Branch: src.Branch, Head: src.Head,
		Snapshot: src.Snapshot, Clean: src.Clean, Skipped: src.Skipped, Rules: src.Rules,
	}
	if err := w.Save(t); err != nil {
		_ = w.Repo.DeleteRef(context.WithoutCancel(ctx), refs.Task.Ref(id), src.Snapshot)
		return nil, err
	}
	return t, nil
}

// Comparison is git nudge compare's view of one task's result.
type Comparison struct {
	ID         string         `json:"id"`
	Attempt    int            `json:"attempt,omitempty"`
	Runner     string         `json:"runner,omitempty"`
	State      string         `json:"state"`
	ExitCode   *int           `json:"exit_code"`
	Seconds    *float64       `json:"seconds"`
	Validation string         `json:"validation"` // passed, failed, skipped, none
	Snapshot   string         `json:"snapshot"`
	Result     *string        `json:"result"`
	Files      []ComparedFile `json:"files"`
	Added      int            `json:"added"`
	Deleted    int            `json:"deleted"`
}

// ComparedFile is one file a result changed, with its lines.
type ComparedFile struct {
	Path    string `json:"path"`
	Status  string `json:"status"`
	Added   int    `json:"added"`
	Deleted int    `json:"deleted"`
	Binary  bool   `json:"binary,omitempty"`
}

// Compare describes each task's result for git nudge compare.
func Compare(ctx context.Context, ws *nudge.Workspace, ids []string) ([]Comparison, error) {
	w := workspace{ws}
	var out []Comparison
	for _, id := range nudge.Distinct(ids) {
		t, err := w.Load(id)
		if err != nil {
			return nil, err
		}
		c := Comparison{ID: t.ID, Attempt: t.Attempt, Runner: t.Runner, State: t.State, ExitCode: t.ExitCode,
			Seconds: t.RunSeconds, Validation: "none", Snapshot: t.Snapshot, Result: t.Result, Files: []ComparedFile{}}
		if t.Validation != nil {
			c.Validation = t.Validation.State
		}
		if t.Result != nil {
			stats, err := w.Repo.NumStat(ctx, t.Base(), *t.Result)
			if err != nil {
				return nil, err
			}
			lines := map[string]ComparedFile{}
			for _, s := range stats {
				lines[s.Path] = ComparedFile{Added: s.Added, Deleted: s.Deleted, Binary: s.Binary}
			}
			for _, f := range t.Files {
				cf := lines[f.Path]
				cf.Path, cf.Status = f.Path, f.Status
				c.Files = append(c.Files, cf)
				c.Added += cf.Added
				c.Deleted += cf.Deleted
			}
			sort.Slice(c.Files, func(i, j int) bool { return c.Files[i].Path < c.Files[j].Path })
		}
		out = append(out, c)
	}
	return out, nil
}
