package proc

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// SandboxArg is the hidden first argument with which git-nudge re-executes
// itself as the sandbox helper: the helper confines itself (see
// EnterSandbox), then replaces itself with the command. The confinement
// happens in that separate process because it applies to the process
// that asks for it and everything it executes afterwards, never to its
// parent: git-nudge itself keeps its rights.
const SandboxArg = "__sandbox-exec"

// SelfExe is the file the sandbox helper is executed from: the running
// binary, as the kernel knows it (still right when the file was replaced
// since).
const SelfExe = "/proc/self/exe"

// NoLandlockEnv is a test-only variable: when set, SandboxABI reports that
// the kernel has no Landlock, so that tests can check the refusal on any
// machine.
const NoLandlockEnv = "GIT_NUDGE_TEST_NO_LANDLOCK"

// ErrNoSandbox says that confining a command is not possible here.
var ErrNoSandbox = errors.New("the sandbox needs Landlock")

// SandboxArgv is the helper's command line: the program to run with
// writable the only folders and files it may write.
func SandboxArgv(name string, writable []string, argv []string) []string {
	out := []string{name, SandboxArg}
	for _, p := range writable {
		out = append(out, "-w", p)
	}
	out = append(out, "--")
	return append(out, argv...)
}

// SandboxMain is the sandbox helper (args follow SandboxArg). With
// -engine landlock (the default) it confines this process to writing
// only the -w paths (Landlock) and installs the seccomp filter; with
// -engine bwrap it runs inside bubblewrap's namespaces, which already
// confine it, and sets the process limit (-nproc) and the seccomp filter.
// -close N closes descriptor N first. It then executes the command in
// place of itself, in the current directory with the current
// environment. It returns only on failure, with the exit status to use:
// 127 when the command could not be started, 126 when the sandbox could
// not be set up (the command did not run).
func SandboxMain(args []string) int {
	var writable []string
	engine := EngineLandlock
	nproc, closeFD := 0, -1
	bad := func() int {
		fmt.Fprintf(os.Stderr, "git nudge: %s: bad arguments %q\n", SandboxArg, args)
		return 126
	}
	for len(args) > 0 && args[0] != "--" {
		if len(args) < 2 {
			return bad()
		}
		switch args[0] {
		case "-w":
			writable = append(writable, args[1])
		case "-engine":
			engine = Engine(args[1])
			if engine != EngineBwrap && engine != EngineLandlock {
				return bad()
			}
		case "-nproc", "-close":
			n, err := strconv.Atoi(args[1])
			if err != nil || n < 0 {
				return bad()
			}
			if args[0] == "-nproc" {
				nproc = n
			} else {
				closeFD = n
			}
		default:
			return bad()
		}
		args = args[2:]
	}
	if len(args) < 2 {
		fmt.Fprintf(os.Stderr, "git nudge: %s: no command given\n", SandboxArg)
		return 126
	}
	argv := args[1:]
	var path string
	dir, _ := os.Getwd()
	// Looked up before confinement, the way a shell would.
	if lp, err := lookPath(argv[0]); err == nil {
		path = lp
	} else {
		fmt.Fprintf(os.Stderr, "git nudge: %v %q in %s: %v\n", ErrNotStarted, argv[0], dir, err)
		return 127
	}
	if closeFD >= 3 {
		_ = syscall.Close(closeFD)
	}
	var err error
	if engine == EngineBwrap {
		err = confineInside(nproc)
	} else {
		err = confine(writable)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "git nudge: the sandbox could not be set up, so the command was not run: %v\n", err)
		return 126
	}
	err = Exec(path, argv, os.Environ()) // a script without "#!" runs with /bin/sh
	fmt.Fprintf(os.Stderr, "git nudge: %v %q in %s: %v\n", ErrNotStarted, argv[0], dir, err)
	return 127
}
