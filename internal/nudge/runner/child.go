package runner

import (
	"io"
	"os"
	"strings"

	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/proc"
)

// child is a program a task runs (a setup command or the task's command),
// in the task's worktree.
type child struct {
	argv []string
	// path, when set, is the file to execute (argv[0] is then only its
	// name): the sandbox helper.
	path   string
	dir    string
	env    []string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// signals received by git-nudge while the child runs; each is passed
	// on to the child unless skip says otherwise.
	signals <-chan os.Signal
	skip    func(os.Signal) bool
	// group runs the child in a process group of its own, stopped as a
	// whole when the child exits, so nothing a task started outlives it
	// in its worktree.
	group bool
	// lock is the task's lock file, inherited as descriptor 3 so that
	// the task stays busy while the child, or anything it started that
	// kept the descriptor, lives on after git-nudge itself is gone.
	lock *os.File
	// started, when set, is told the child's pid.
	started func(pid int)
}

// ErrCommandNotStarted wraps the reason a child could not be started.
var ErrCommandNotStarted = proc.ErrNotStarted

// ReviewEnv names the variable that holds the path of the review file
// (review.WriteFile) a task's command is given when the task has review
// comments.
const ReviewEnv = "NUDGE_REVIEW"

// run starts the child and waits for it; see proc.Run for the exit code.
func (c child) run() (int, error) {
	var extra []*os.File
	if c.lock != nil {
		extra = []*os.File{c.lock}
	}
	return proc.Run(proc.Spec{Argv: c.argv, Path: c.path, Dir: c.dir, Env: c.env, Stdin: c.stdin,
		Stdout: c.stdout, Stderr: c.stderr, Signals: c.signals, Skip: c.skip,
		Group: c.group, StopGroup: c.group, ExtraFiles: extra, Started: c.started,
		Reap: true})
}

// childEnv is the environment of a task's programs: the caller's, without
// the git variables that would point them at the user's repository instead
// of the task's worktree, plus NUDGE_TASK, NUDGE_WORKSPACE and PWD.
func (w workspace) childEnv(base []string, t *nudge.Task, dir string) []string {
	drop := map[string]bool{
		"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true, "GIT_OBJECT_DIRECTORY": true,
		"GIT_ALTERNATE_OBJECT_DIRECTORIES": true, "GIT_PREFIX": true, "GIT_COMMON_DIR": true,
		"GIT_NAMESPACE": true, "GIT_QUARANTINE_PATH": true, "PWD": true,
		"NUDGE_TASK": true, "NUDGE_WORKSPACE": true, ReviewEnv: true,
	}
	env := make([]string, 0, len(base)+3)
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			env = append(env, kv)
		}
	}
	return append(env, "NUDGE_TASK="+t.ID, "NUDGE_WORKSPACE="+w.Repo.WorkTree, "PWD="+dir)
}
