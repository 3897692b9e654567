package proc

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ReapArg is the hidden first argument with which git-nudge and
// git-autodev re-execute themselves as the reaper: a small process that
// becomes the parent of last resort of everything the command starts
// (Linux's child subreaper), runs the command, and when the command has
// exited ends whatever it left behind (setsid, double fork and nohup
// included) before it exits itself. The caller's wait for the reaper is
// thus a wait for the command and all it started.
const ReapArg = "__reap"

// reapGrace is how long the processes left behind get between SIGTERM
// and SIGKILL, in milliseconds.
const reapGrace = 2000

// ReapArgv is the reaper's command line for running argv (executing path
// instead of looking argv[0] up when path is set), passing on nfiles
// descriptors after the standard three, and passing SIGTERM and SIGINT on
// to the command when forward is set (otherwise they reach it some other
// way: a process group signal, or the terminal).
func ReapArgv(name, path string, nfiles int, forward bool, argv []string) []string {
	// The descriptor after the passed-on ones is the report pipe.
	out := []string{name, ReapArg, "-files", strconv.Itoa(nfiles)}
	if path != "" {
		out = append(out, "-path", path)
	}
	if forward {
		out = append(out, "-forward")
	}
	out = append(out, "--")
	return append(out, argv...)
}

// reapArgs are the reaper's parsed arguments.
type reapArgs struct {
	path    string
	files   int
	forward bool
	argv    []string
}

func parseReapArgs(args []string) (reapArgs, error) {
	var a reapArgs
	for len(args) > 0 && args[0] != "--" {
		switch {
		case args[0] == "-forward":
			a.forward = true
			args = args[1:]
		case args[0] == "-path" && len(args) > 1:
			a.path = args[1]
			args = args[2:]
		case args[0] == "-files" && len(args) > 1:
			n, err := strconv.Atoi(args[1])
			if err != nil || n < 0 || n > 64 {
				return a, fmt.Errorf("bad -files %q", args[1])
			}
			a.files = n
			args = args[2:]
		default:
			return a, fmt.Errorf("bad arguments %q", args)
		}
	}
	if len(args) < 2 {
		return a, fmt.Errorf("no command given")
	}
	a.argv = args[1:]
	return a, nil
}

// ReapMain is the reaper (args follow ReapArg). It returns the command's
// exit status as a shell reports it (128+N for signal N), 127 when the
// command could not be started, and only once no process the command
// started is left.
func ReapMain(args []string) int {
	a, err := parseReapArgs(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "git-nudge: %s: %v\n", ReapArg, err)
		return 127
	}
	// The report pipe tells the caller why the command could not be
	// started; the command itself never inherits it.
	report := os.NewFile(uintptr(3+a.files), "report")
	syscall.CloseOnExec(3 + a.files)
	return reap(a, report)
}

// execCommand starts the command the reaper runs: path (looked up from
// argv[0] when empty) with argv, in the current directory and
// environment, with descriptors 0, 1, 2 and the next nfiles passed on.
// It is the one place the reaper starts a program, so that how a program
// is started (a script without #! run by /bin/sh, as execvp does) is
// decided here as for every other program.
func execCommand(path string, argv []string, nfiles int) (int, error) {
	dir, _ := os.Getwd()
	if path == "" {
		p, err := lookPath(argv[0])
		if err != nil {
			return 0, notStarted(Spec{Argv: argv, Dir: dir}, err)
		}
		path = p
	}
	files := make([]uintptr, 3+nfiles)
	for i := range files {
		files[i] = uintptr(i)
	}
	attr := &syscall.ProcAttr{Env: os.Environ(), Files: files}
	pid, err := syscall.ForkExec(path, argv, attr)
	if sh, ok := ShellFallback(err, path, argv); ok { // a script without "#!"
		pid, err = syscall.ForkExec(Shell, sh, attr)
	}
	if err != nil {
		return 0, notStarted(Spec{Argv: argv, Dir: dir}, err)
	}
	return pid, nil
}

// underReaper turns s into the spec that runs s under the reaper: this
// binary re-executed with ReapArg, s's descriptors passed on, and the
// write end of a report pipe after them (closed here once the reaper
// runs: see reported).
func underReaper(s Spec) (Spec, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return s, nil, err
	}
	name := "git-nudge"
	if len(os.Args) > 0 && os.Args[0] != "" {
		name = filepathBase(os.Args[0])
	}
	path := s.Path
	if path == "" && filepathBase(s.Argv[0]) == s.Argv[0] {
		// Looked up here, in this process's PATH, as exec.Command does
		// for a program run directly (the command's own environment may
		// have no PATH); a name with a slash is found in the command's
		// folder by the reaper.
		p, err := commandPath(s.Argv[0])
		if err != nil {
			r.Close()
			w.Close()
			return s, nil, err
		}
		path = p
	}
	out := s
	out.Argv = ReapArgv(name, path, len(s.ExtraFiles), !s.Group, s.Argv)
	out.Path = SelfExe
	out.ExtraFiles = append(append([]*os.File{}, s.ExtraFiles...), w)
	out.reportW = w
	return out, r, nil
}

// reported is what the reaper wrote on the report pipe: why the command
// could not be started ("" when it was).
func reported(r *os.File) string {
	if r == nil {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(r, 4096))
	return string(b)
}

// filepathBase is the last element of a slash-separated path.
func filepathBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
