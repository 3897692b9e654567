package proc

import (
	"errors"
	"syscall"
)

// Shell is the shell that runs a file the kernel cannot execute itself.
const Shell = "/bin/sh"

// ShellFallback is POSIX execvp's rule for a program the user names (a
// task's command, a setup or validation command, a hook): when executing
// path failed with ENOEXEC (the file is executable but neither a binary
// the kernel knows nor a script with a "#!" line), the program is run as
// a shell script, "/bin/sh path args...", the way a shell, env, xargs and
// git start it. It returns the command line to execute instead of argv
// (argv[0] is the name the user gave; path the file found for it) and
// true, or argv and false when err is anything else.
//
// Call it after a failed exec (syscall.Exec or exec.Cmd.Start), never
// before: the kernel, not a guess from the file's first bytes, decides
// which files need a shell.
func ShellFallback(err error, path string, argv []string) ([]string, bool) {
	if err == nil || !errors.Is(err, syscall.ENOEXEC) || path == "" {
		return argv, false
	}
	out := make([]string, 0, len(argv)+1)
	out = append(out, Shell, path)
	if len(argv) > 1 {
		out = append(out, argv[1:]...)
	}
	return out, true
}

// Exec is syscall.Exec with ShellFallback; like syscall.Exec it returns
// only on failure.
func Exec(path string, argv, env []string) error {
	err := syscall.Exec(path, argv, env)
	if sh, ok := ShellFallback(err, path, argv); ok {
		if serr := syscall.Exec(Shell, sh, env); serr == nil {
			return nil
		}
	}
	return err
}
