package operation

import (
	"context"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/oneline"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// OffVar names the variable that, set to "off", switches recording off
// for a process: the benchmark measures the cost of recording by running
// the same command with GIT_NUDGE_OPLOG=off. It is not a user setting
// (unrecorded changes cannot be undone with op undo).
const OffVar = "GIT_NUDGE_OPLOG"

// Plan is what is known about one change before it runs: the repository
// whose log records it, and what the change is.
type Plan struct {
	Repo *oplog.Repo
	Spec oplog.Spec
}

// Record runs run as an operation of plan.Repo's log: pending before it
// runs, done or failed after, begun at now(). run gets the context that
// carries the recording (the repository a workflow opens with it records
// there too), and plan.Repo carries it while run runs. A log that cannot
// be written is said through warn and run runs unrecorded (nothing of the
// user's is at stake in the log). With a nil plan.Repo, run just runs.
func Record(ctx context.Context, plan Plan, now func() time.Time, warn func(format string, args ...any), run func(ctx context.Context) error) error {
	if plan.Repo == nil {
		return run(ctx)
	}
	l := oplog.Open(plan.Repo)
	var lock *journal.Lock
	if !plan.Spec.Long {
		var err error
		if lock, err = l.Lock(ctx, "git "+plan.Spec.Tool+" "+plan.Spec.Kind); err != nil {
			// Another recorded command holds the log (a capture
			// validating, say): run unrecorded rather than fail; the
			// workspace locks still serialize the changes themselves.
			warn("git %s: not recorded in the operation log: %s\n", plan.Spec.Tool, oneline.First(err.Error()))
			return run(ctx)
		}
		defer lock.Release()
	}
	rec, err := l.Begin(ctx, plan.Spec, now())
	if err != nil {
		warn("git %s: not recorded in the operation log: %s\n", plan.Spec.Tool, oneline.First(err.Error()))
		return run(ctx)
	}
	// The recording is the change's transaction: the repository run
	// opens with the context carries it (restore also hands it what it
	// is about to change: oplog.Recording.Changing), and so does
	// plan.Repo while run runs (the dashboard's actions change refs and
	// records through the workspace they opened before).
	tx := plan.Repo.Tx
	plan.Repo.Tx = rec
	runErr := run(oplog.WithRecording(ctx, rec))
	plan.Repo.Tx = tx
	if ferr := rec.Finish(ctx, runErr); ferr != nil {
		warn("git %s: %s\n", plan.Spec.Tool, oneline.First(ferr.Error()))
	}
	return runErr
}

// FilesWatch hands what git nudge apply and undo say they change in the
// work tree to the recording ctx carries (oplog.Spec.FilesHinted); nil
// when there is none.
func FilesWatch(ctx context.Context) *nudge.FilesWatch {
	rec := oplog.RecordingFrom(ctx)
	if rec == nil {
		return nil
	}
	files := func(states map[string]*nudge.FileState) map[string]*oplog.File {
		m := make(map[string]*oplog.File, len(states))
		for p, st := range states {
			if st == nil {
				m[p] = nil
			} else {
				m[p] = &oplog.File{Mode: st.Mode, Blob: st.Blob}
			}
		}
		return m
	}
	return &nudge.FilesWatch{
		Before: func(paths []string, states map[string]*nudge.FileState) { rec.Files(ctx, paths, files(states)) },
		After:  func(states map[string]*nudge.FileState) { rec.FilesDone(files(states)) },
	}
}
