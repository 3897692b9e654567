package opcmd

import (
	"context"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/operation"
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
type Plan = operation.Plan

// Around records the command as an operation (operation.Record): pending
// before it runs, done or failed after; env.Ctx carries the recording
// while run runs. A log that cannot be written is reported on stderr and
// the command runs unrecorded.
func Around(env *cli.Env, plan Plan, run func() error) error {
	if Off(env) {
		return run()
	}
	return operation.Record(env.Ctx, plan, env.Now, env.Warnf, func(ctx context.Context) error {
		saved := env.Ctx
		env.Ctx = ctx
		defer func() { env.Ctx = saved }()
		return run()
	})
}

// Off reports whether recording is switched off for this process: the
// benchmark measures the cost of recording by running the same command
// with GIT_NUDGE_OPLOG=off. It is not a user setting (unrecorded changes
// cannot be undone with op undo).
func Off(env *cli.Env) bool {
	return env.Getenv != nil && env.Getenv(operation.OffVar) == "off"
}

// FilesWatch hands what git nudge apply and undo say they change in the
// work tree to the recording ctx carries; nil when there is none.
func FilesWatch(ctx context.Context) *nudge.FilesWatch { return operation.FilesWatch(ctx) }
