package opcmd

import (
	"context"
	"strings"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// Recorded is a command that changes something. It declares, once, what
// it is for the operation log: its kind, its scope (what it may change),
// whether it is long-running, whether it leaves the index alone, which
// work-tree files it may write or names as it goes (Paths, Status,
// Hinted, FilesHinted). The recorder fills in Spec.Tool and Spec.Args.
// ok false: this command line changes nothing (a list, a dry run) and is
// not recorded. A command without the method is never recorded.
type Recorded interface {
	Operation() (spec oplog.Spec, ok bool)
}

// Recorder is a binary's cli.Program.Around: each command that is
// Recorded (and says ok) runs as an operation of the log of the
// repository open finds (tool: "nudge" or "autodev"). A repository open
// cannot find is the command's to report: it runs unrecorded.
func Recorder(tool string, open func(env *cli.Env) (*oplog.Repo, error)) func(env *cli.Env, cmd any, args []string, run func() error) error {
	return func(env *cli.Env, cmd any, args []string, run func() error) error {
		rc, ok := cmd.(Recorded)
		if !ok || Off(env) {
			return run()
		}
		spec, ok := rc.Operation()
		if !ok {
			return run()
		}
		r, err := open(env)
		if err != nil {
			return run() // the command reports it
		}
		spec.Tool = tool
		if spec.Args == nil {
			spec.Args = args
		}
		return Around(env, Plan{Repo: r, Spec: spec}, run)
	}
}

// Plan is what the recorder knows about one command: the repository
// whose log records it, and what the command is.
type Plan struct {
	Repo *oplog.Repo
	Spec oplog.Spec
}

// Around records the command as an operation: pending before it runs,
// done or failed after. A log that cannot be written is reported on
// stderr and the command runs unrecorded (nothing of the user's is at
// stake in the log).
func Around(env *cli.Env, plan Plan, run func() error) error {
	if plan.Repo == nil || Off(env) {
		return run()
	}
	l := oplog.Open(plan.Repo)
	var lock *journal.Lock
	if !plan.Spec.Long {
		var err error
		if lock, err = l.Lock(env.Ctx, "git "+plan.Spec.Tool+" "+plan.Spec.Kind); err != nil {
			// Another recorded command holds the log (a capture
			// validating, say): run unrecorded rather than fail; the
			// workspace locks still serialize the changes themselves.
			env.Warnf("git %s: not recorded in the operation log: %s\n", plan.Spec.Tool, firstLine(err.Error()))
			return run()
		}
		defer lock.Release()
	}
	rec, err := l.Begin(env.Ctx, plan.Spec, env.Now())
	if err != nil {
		env.Warnf("git %s: not recorded in the operation log: %s\n", plan.Spec.Tool, firstLine(err.Error()))
		return run()
	}
	// The recording is the command's transaction: the repository the
	// command opens with the context carries it (restore also hands it
	// what it is about to change: oplog.Recording.Changing), and so does
	// plan.Repo while the command runs (the dashboard's actions change
	// refs and records through the workspace they opened before).
	ctx, tx := env.Ctx, plan.Repo.Tx
	env.Ctx = oplog.WithRecording(ctx, rec)
	plan.Repo.Tx = rec
	cmdErr := run()
	env.Ctx, plan.Repo.Tx = ctx, tx
	if ferr := rec.Finish(env.Ctx, cmdErr); ferr != nil {
		env.Warnf("git %s: %s\n", plan.Spec.Tool, firstLine(ferr.Error()))
	}
	return cmdErr
}

// Off reports whether recording is switched off for this process: the
// benchmark measures the cost of recording by running the same command
// with GIT_NUDGE_OPLOG=off. It is not a user setting (unrecorded changes
// cannot be undone with op undo).
func Off(env *cli.Env) bool {
	return env.Getenv != nil && env.Getenv("GIT_NUDGE_OPLOG") == "off"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
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
