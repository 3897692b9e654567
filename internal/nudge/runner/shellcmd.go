package runner

import (
	"fmt"
	"io"
	"os"

	"github.com/nudgethis/git-nudge/internal/nudge/runlog"
)

// shellLog runs configured shell commands (nudge.setup, nudge.validate)
// in a task's worktree: each with sh -c, in a process group of its own
// that is stopped as a whole when the command exits, announced as
// "$ command" in a log bounded to runlog.Limit bytes and, when tee is set,
// copied to tee as well.
type shellLog struct {
	path string
	out  io.Writer
	log  *runlog.Log
}

// openShellLog creates (or empties) the bounded log at path.
func openShellLog(path string, tee io.Writer) (*shellLog, error) {
	log, err := runlog.Open(path, runlog.Limit)
	if err != nil {
		return nil, err
	}
	s := &shellLog{path: path, out: log, log: log}
	if tee != nil {
		s.out = io.MultiWriter(log, tee)
	}
	return s, nil
}

// Close closes the log.
func (s *shellLog) Close() error { return s.log.Close() }

// Printf adds a line of git-nudge's own to the log (and tee).
func (s *shellLog) Printf(format string, args ...any) {
	fmt.Fprintf(s.out, format, args...)
}

// command announces c in the log and returns the child that runs it in
// dir with env, its output into the log; lock is inherited by it (the
// task stays busy while it lives) and signals are passed on to it.
func (s *shellLog) command(c, dir string, env []string, lock *os.File, signals <-chan os.Signal) child {
	fmt.Fprintf(s.out, "$ %s\n", c)
	return child{
		argv: []string{"sh", "-c", c}, dir: dir, env: env,
		stdout: s.out, stderr: s.out, group: true, lock: lock, signals: signals,
	}
}
