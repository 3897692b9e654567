package opcmd

import (
	"context"
	"strings"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// Plan is what a binary tells the recorder about one command line.
type Plan struct {
	Repo *oplog.Repo
	Spec oplog.Spec
	Long bool // a long run: no log lock held across it
	Skip bool // not a mutating command
}

// Around records the command as an operation: pending before it runs,
// done or failed after. A log that cannot be written is reported on
// stderr and the command runs unrecorded (nothing of the user's is at
// stake in the log).
func Around(env *cli.Env, plan Plan, run func() error) error {
	if plan.Skip || plan.Repo == nil || Off(env) {
		return run()
	}
	l := oplog.Open(plan.Repo)
	var lock *journal.Lock
	if !plan.Long {
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
	plan.Spec.Long = plan.Long
	rec, err := l.Begin(env.Ctx, plan.Spec, env.Now())
	if err != nil {
		env.Warnf("git %s: not recorded in the operation log: %s\n", plan.Spec.Tool, firstLine(err.Error()))
		return run()
	}
	// The command reaches its recording through the context (restore
	// hands it what it is about to change: oplog.Recording.Changing).
	ctx := env.Ctx
	env.Ctx = oplog.WithRecording(ctx, rec)
	cmdErr := run()
	env.Ctx = ctx
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

// Positionals returns the arguments of a command line that are not flags,
// after the subcommand's name.
func Positionals(args []string) []string {
	var out []string
	for i, a := range args {
		if i == 0 {
			continue
		}
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		out = append(out, a)
	}
	return out
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

// HasFlag reports whether a command line holds flag before any "--".
func HasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == flag {
			return true
		}
	}
	return false
}
