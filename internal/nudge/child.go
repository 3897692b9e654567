package nudge

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// child is a program a task runs (a setup command or the task's command),
// in the task's worktree.
type child struct {
	argv   []string
	dir    string
	env    []string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// signals received by git-nudge while the child runs; each is passed
	// on to the child unless skip says otherwise.
	signals <-chan os.Signal
	skip    func(os.Signal) bool
}

// ErrCommandNotStarted wraps the reason a child could not be started.
var ErrCommandNotStarted = errors.New("could not start the command")

// run starts the child and waits for it. The exit code follows the shell's
// conventions: the program's status, 128+N when signal N ended it, 127
// when it could not be started (err says why).
func (c child) run() (int, error) {
	x := exec.Command(c.argv[0], c.argv[1:]...)
	x.Dir = c.dir
	x.Env = c.env
	x.Stdin = c.stdin
	x.Stdout = c.stdout
	x.Stderr = c.stderr
	// A program that leaves a background process holding its output open
	// must not keep git-nudge waiting forever.
	x.WaitDelay = 5 * time.Second
	if err := x.Start(); err != nil {
		return 127, fmt.Errorf("%w %q: %v", ErrCommandNotStarted, c.argv[0], err)
	}
	done := make(chan struct{})
	if c.signals != nil {
		go func() {
			for {
				select {
				case <-done:
					return
				case sig := <-c.signals:
					if c.skip == nil || !c.skip(sig) {
						_ = x.Process.Signal(sig)
					}
				}
			}
		}()
	}
	err := x.Wait()
	close(done)
	if x.ProcessState == nil {
		return 127, err
	}
	if ws, ok := x.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	if code := x.ProcessState.ExitCode(); code >= 0 {
		return code, nil
	}
	return 1, err
}

// childEnv is the environment of a task's programs: the caller's, without
// the git variables that would point them at the user's repository instead
// of the task's worktree, plus NUDGE_TASK, NUDGE_WORKSPACE and PWD.
func (w *Workspace) childEnv(base []string, t *Task, dir string) []string {
	drop := map[string]bool{
		"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true, "GIT_OBJECT_DIRECTORY": true,
		"GIT_ALTERNATE_OBJECT_DIRECTORIES": true, "GIT_PREFIX": true, "GIT_COMMON_DIR": true,
		"GIT_NAMESPACE": true, "GIT_QUARANTINE_PATH": true, "PWD": true,
		"NUDGE_TASK": true, "NUDGE_WORKSPACE": true,
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
