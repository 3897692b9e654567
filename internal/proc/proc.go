// Package proc runs the user's programs (a task's command, setup commands,
// an autodev run) the way a shell would: streams passed through, signals
// forwarded, and the exit status a shell reports (the program's status,
// 128+N when signal N ended it, 127 when it could not be started).
package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrNotStarted wraps the reason a program could not be started.
var ErrNotStarted = errors.New("could not start the command")

// Spec is one program to run.
type Spec struct {
	Argv []string
	// Path, when set, is the file to execute, with Argv[0] only its name
	// (otherwise Argv[0] is looked up in PATH).
	Path   string
	Dir    string
	Env    []string // nil: the caller's environment
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Signals received while the program runs are passed on to it,
	// except those Skip (when set) declines.
	Signals <-chan os.Signal
	Skip    func(os.Signal) bool
	// Group runs the program in a process group of its own: forwarded
	// signals then reach everything it started, and with StopGroup any of
	// those still running when the program exits are stopped (SIGTERM,
	// then SIGKILL two seconds later). Only for programs that do not read
	// from a terminal: a background group cannot.
	Group     bool
	StopGroup bool
	// ExtraFiles are open files the program inherits as descriptors 3,
	// 4, ... (exec.Cmd.ExtraFiles).
	ExtraFiles []*os.File
	// Started, when set, is called with the program's pid once it runs.
	Started func(pid int)
	// Reap runs the program under the reaper (see ReapArg; Linux only):
	// whatever it starts, in any process group or session, is ended when
	// it exits, and Run returns only once none is left. The running
	// binary must dispatch ReapArg to ReapMain.
	Reap bool
	// reportW is the reaper's report pipe (set by underReaper), closed
	// here once the reaper has started.
	reportW *os.File
}

// Run starts the program, waits for it and returns its shell exit status.
func Run(s Spec) (int, error) {
	if len(s.Argv) == 0 {
		return 127, fmt.Errorf("%w: no command given", ErrNotStarted)
	}
	var report *os.File
	if s.Reap && reapSupported {
		reaped, r, err := underReaper(s)
		if err != nil {
			return 127, notStarted(s, err)
		}
		s, report = reaped, r
		defer report.Close()
	}
	x := exec.Command(s.Argv[0], s.Argv[1:]...)
	if s.Path != "" {
		x = exec.Command(s.Path, s.Argv[1:]...)
		x.Args[0] = s.Argv[0]
	}
	x.Dir, x.Env = s.Dir, s.Env
	x.Stdin, x.Stdout, x.Stderr = s.Stdin, s.Stdout, s.Stderr
	x.ExtraFiles = s.ExtraFiles
	// A program that leaves a background process holding its output open
	// must not keep us waiting forever.
	x.WaitDelay = 5 * time.Second
	var pipes *copies
	if s.Group {
		x.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if s.StopGroup {
			// Our own pipes, so that Wait returns when the program exits
			// even while something it started still holds its output.
			var err error
			if pipes, err = ownPipes(x); err != nil {
				return 127, notStarted(s, err)
			}
		}
	}
	x, err := Start(x)     // a script without "#!" runs with /bin/sh
	pipes.closeWriteEnds() // only the child holds them now
	if s.reportW != nil {
		s.reportW.Close()
	}
	if err != nil {
		pipes.wait()
		return 127, notStarted(s, err)
	}
	done := make(chan struct{})
	if s.Signals != nil {
		go func() {
			for {
				select {
				case <-done:
					return
				case sig := <-s.Signals:
					if s.Skip != nil && s.Skip(sig) {
						continue
					}
					if ss, ok := sig.(syscall.Signal); ok && s.Group {
						_ = syscall.Kill(-x.Process.Pid, ss)
					} else {
						_ = x.Process.Signal(sig)
					}
				}
			}
		}()
	}
	if s.Started != nil {
		// Signals are already being passed on while it runs.
		s.Started(x.Process.Pid)
	}
	err = x.Wait()
	if s.Group && s.StopGroup {
		// The program has exited; stop what it left behind, then let
		// the copies of its output drain (they end when the last
		// holder of the pipes is gone).
		stopGroup(x.Process.Pid)
	}
	pipes.wait()
	close(done)
	if x.ProcessState == nil {
		return 127, err
	}
	if why := reported(report); why != "" {
		return 127, fmt.Errorf("%w%s", ErrNotStarted, why)
	}
	if ws, ok := x.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	if code := x.ProcessState.ExitCode(); code >= 0 {
		return code, nil
	}
	return 1, err
}

// Start is x.Start (x made by exec.Command) with ShellFallback: when the kernel refuses x's file
// with ENOEXEC, the same command (directory, environment, streams, extra
// files, process attributes) is started through /bin/sh instead. It
// returns the command that runs (x, or its /bin/sh twin) so the caller
// waits for the right one.
func Start(x *exec.Cmd) (*exec.Cmd, error) {
	err := x.Start()
	argv, ok := ShellFallback(err, x.Path, x.Args)
	if !ok {
		return x, err
	}
	y := exec.Command(Shell, argv[1:]...)
	y.Dir, y.Env = x.Dir, x.Env
	y.Stdin, y.Stdout, y.Stderr = x.Stdin, x.Stdout, x.Stderr
	y.ExtraFiles, y.SysProcAttr = x.ExtraFiles, x.SysProcAttr
	y.WaitDelay = x.WaitDelay
	if yerr := y.Start(); yerr != nil {
		return x, err // the first reason is the one to report
	}
	return y, nil
}

// notStarted is the error for a program that could not be started: it
// names the program and the directory it was started in.
func notStarted(s Spec, err error) error {
	if s.Dir != "" {
		return fmt.Errorf("%w %q in %s: %v", ErrNotStarted, s.Argv[0], s.Dir, err)
	}
	return fmt.Errorf("%w %q: %v", ErrNotStarted, s.Argv[0], err)
}

// stopGroup ends the processes left in group pgid: SIGTERM, then SIGKILL
// for any still there after two seconds.
func stopGroup(pgid int) {
	if syscall.Kill(-pgid, syscall.SIGTERM) != nil {
		return // nobody left
	}
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if syscall.Kill(-pgid, 0) != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// copies are the pipes ownPipes made and the goroutines copying from them.
type copies struct {
	writers []*os.File
	readers []*os.File
	wg      sync.WaitGroup
}

// ownPipes replaces x's non-file stdout and stderr writers by pipes this
// package copies from.
func ownPipes(x *exec.Cmd) (*copies, error) {
	c := &copies{}
	for _, w := range []*io.Writer{&x.Stdout, &x.Stderr} {
		if *w == nil {
			continue
		}
		if _, ok := (*w).(*os.File); ok {
			continue
		}
		pr, pw, err := os.Pipe()
		if err != nil {
			c.closeWriteEnds()
			c.wait()
			return nil, err
		}
		dst := *w
		*w = pw
		c.writers = append(c.writers, pw)
		c.readers = append(c.readers, pr)
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			_, _ = io.Copy(dst, pr)
		}()
	}
	return c, nil
}

// closeWriteEnds closes this process's copies of the write ends: the
// copies see EOF once every process holding them is gone.
func (c *copies) closeWriteEnds() {
	if c == nil {
		return
	}
	for _, w := range c.writers {
		_ = w.Close()
	}
}

// wait waits, five seconds at most, for the copies to finish, then closes
// the read ends.
func (c *copies) wait() {
	if c == nil {
		return
	}
	finished := make(chan struct{})
	go func() { c.wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(5 * time.Second):
	}
	for _, r := range c.readers {
		_ = r.Close()
	}
}

// Gone reports whether process pid has certainly ended (a pid that cannot
// be checked counts as alive).
func Gone(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return errors.Is(err, syscall.ESRCH)
}

// OpenURL asks the desktop to open url in a browser (xdg-open, or open on
// macOS) and does not wait for it. It reports whether an opener was found
// and started.
//
// $BROWSER, when set, is used first, as Python's webbrowser reads it: a
// list of commands separated by ":", each given url in place of %s, or
// after its own arguments when it has no %s; the first that starts wins.
func OpenURL(url string) bool {
	for _, b := range strings.Split(os.Getenv("BROWSER"), string(os.PathListSeparator)) {
		argv := strings.Fields(b)
		if len(argv) == 0 {
			continue
		}
		had := false
		for i, a := range argv {
			if strings.Contains(a, "%s") {
				argv[i], had = strings.ReplaceAll(a, "%s", url), true
			}
		}
		if !had {
			argv = append(argv, url)
		}
		c, err := Start(exec.Command(argv[0], argv[1:]...)) // the user's program, found as a shell would
		if err != nil {
			continue
		}
		go func() { _ = c.Wait() }()
		return true
	}
	for _, name := range []string{"xdg-open", "open"} {
		path, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		c := exec.Command(path, url)
		if err := c.Start(); err != nil {
			continue
		}
		go func() { _ = c.Wait() }()
		return true
	}
	return false
}

// lookPath finds a command the way a shell would (a name with a slash is
// taken as it is, a relative one found through a relative PATH entry
// included). It is here so that only this file of the package uses os/exec.
func lookPath(name string) (string, error) {
	p, err := exec.LookPath(name)
	if errors.Is(err, exec.ErrDot) {
		err = nil
	}
	return p, err
}

// combinedOutput runs a program to its end and returns what it wrote on
// stdout and stderr together (the sandbox's probe of bubblewrap).
func combinedOutput(path string, args ...string) ([]byte, error) {
	return exec.Command(path, args...).CombinedOutput()
}

// commandPath is exec.Command's lookup of a program name without a slash
// (an entry found through a relative PATH entry is refused, as there).
func commandPath(name string) (string, error) {
	return exec.LookPath(name)
}

// LookPath finds a program in PATH (exec.LookPath).
func LookPath(name string) (string, error) { return exec.LookPath(name) }

// Quick runs argv to its end with env in dir, its output to stdout and
// stderr (nil: discarded): a short helper such as a runner's set-up or
// clean-up step (a container engine's rm, ssh, git push), with no process
// group, signal passing or reaping. Cancelling ctx kills it.
func Quick(ctx context.Context, argv, env []string, dir string, stdout, stderr io.Writer) error {
	x := exec.CommandContext(ctx, argv[0], argv[1:]...)
	x.Env, x.Dir, x.Stdout, x.Stderr = env, dir, stdout, stderr
	return x.Run()
}

// QuickIn is Quick with stdin (nil: the null device).
func QuickIn(ctx context.Context, argv, env []string, dir string, stdin io.Reader, stdout, stderr io.Writer) error {
	x := exec.CommandContext(ctx, argv[0], argv[1:]...)
	x.Env, x.Dir, x.Stdin, x.Stdout, x.Stderr = env, dir, stdin, stdout, stderr
	return x.Run()
}

// Detached runs argv with env in a session of its own and waits for it
// to end. It is for a program that leaves a daemon behind (ssh -f): the
// daemon is in no process group of this process's, so ending a task's
// group never ends it.
func Detached(argv, env []string) error {
	x := exec.Command(argv[0], argv[1:]...)
	x.Env = env
	x.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return x.Run()
}
