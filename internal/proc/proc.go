// Package proc runs the user's programs (a task's command, setup commands,
// an autodev run) the way a shell would: streams passed through, signals
// forwarded, and the exit status a shell reports (the program's status,
// 128+N when signal N ended it, 127 when it could not be started).
package proc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// ErrNotStarted wraps the reason a program could not be started.
var ErrNotStarted = errors.New("could not start the command")

// Spec is one program to run.
type Spec struct {
	Argv   []string
	Dir    string
	Env    []string // nil: the caller's environment
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Signals received while the program runs are passed on to it,
	// except those Skip (when set) declines.
	Signals <-chan os.Signal
	Skip    func(os.Signal) bool
}

// Run starts the program, waits for it and returns its shell exit status.
func Run(s Spec) (int, error) {
	if len(s.Argv) == 0 {
		return 127, fmt.Errorf("%w: no command given", ErrNotStarted)
	}
	x := exec.Command(s.Argv[0], s.Argv[1:]...)
	x.Dir, x.Env = s.Dir, s.Env
	x.Stdin, x.Stdout, x.Stderr = s.Stdin, s.Stdout, s.Stderr
	// A program that leaves a background process holding its output open
	// must not keep us waiting forever.
	x.WaitDelay = 5 * time.Second
	if err := x.Start(); err != nil {
		return 127, fmt.Errorf("%w %q: %v", ErrNotStarted, s.Argv[0], err)
	}
	done := make(chan struct{})
	if s.Signals != nil {
		go func() {
			for {
				select {
				case <-done:
					return
				case sig := <-s.Signals:
					if s.Skip == nil || !s.Skip(sig) {
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
