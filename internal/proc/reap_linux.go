//go:build linux

package proc

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// reapSupported says whether this system has the child subreaper.
const reapSupported = true

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER.
const prSetChildSubreaper = 36

// reap runs the command as a child subreaper and returns its shell exit
// status once nothing it started is left.
func reap(a reapArgs, report *os.File) int {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		fmt.Fprintf(report, " %q: the reaper could not become a child subreaper: %v", a.argv[0], e)
		report.Close()
		return 127
	}
	// Signals that would end the reaper are caught instead: it must
	// outlive the command to end what the command left. SIGTERM is
	// passed on when asked (-forward); otherwise the signals that reach
	// the reaper reach the command too (its process group, or the
	// terminal's foreground group).
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	pid, err := execCommand(a.path, a.argv, a.files)
	if err != nil {
		fmt.Fprint(report, strings.TrimPrefix(err.Error(), ErrNotStarted.Error()))
		report.Close()
		return 127
	}
	report.Close()
	// Only the command holds the caller's streams from now on: a
	// caller waiting for its output to end (git-nudge killed, a script
	// reading the pipe) waits for the command, not for the reaper.
	if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		for fd := 0; fd <= 2; fd++ {
			_ = syscall.Dup3(int(null.Fd()), fd, 0)
		}
		null.Close()
	}
	go func() {
		for sig := range sigs {
			if a.forward && sig == syscall.SIGTERM {
				_ = syscall.Kill(pid, syscall.SIGTERM)
			}
		}
	}()
	code := 1
wait:
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			break // no child left at all
		}
		if got != pid {
			continue // something the command left, reparented here: gone
		}
		switch {
		case ws.Exited():
			code = ws.ExitStatus()
		case ws.Signaled():
			code = 128 + int(ws.Signal())
		default:
			continue
		}
		break wait
	}
	endChildren()
	return code
}

// endChildren ends every process left below the reaper and waits until
// none is left: SIGTERM (and SIGCONT, for a stopped one) first, SIGKILL
// for any still there after the grace period. Only the reaper's own
// children are signalled: their pids cannot be reused before the reaper
// waits for them, so no unrelated process is ever hit; grandchildren
// become children (the subreaper) as their parents end.
func endChildren() {
	termed := map[int]bool{}
	start := time.Now()
	for {
		reapZombies()
		kids := children(os.Getpid())
		if len(kids) == 0 {
			if _, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil); err == syscall.ECHILD {
				return
			}
			time.Sleep(5 * time.Millisecond)
			continue
		}
		late := time.Since(start) > reapGrace*time.Millisecond
		for _, k := range kids {
			switch {
			case late:
				_ = syscall.Kill(k, syscall.SIGKILL)
			case !termed[k]:
				termed[k] = true
				_ = syscall.Kill(k, syscall.SIGTERM)
				_ = syscall.Kill(k, syscall.SIGCONT)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// reapZombies waits for every child that has already ended.
func reapZombies() {
	for {
		got, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || got <= 0 {
			return
		}
	}
}

// children lists the live (not yet ended) children of process parent,
// read from /proc.
func children(parent int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, state, ok := statOf(pid)
		if ok && ppid == parent && state != 'Z' && state != 'X' {
			out = append(out, pid)
		}
	}
	return out
}

// statOf reads process pid's parent and state from /proc/<pid>/stat.
func statOf(pid int) (ppid int, state byte, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// pid (comm) state ppid ...; comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+2:]))
	if len(f) < 2 {
		return 0, 0, false
	}
	ppid, err = strconv.Atoi(f[1])
	if err != nil || len(f[0]) == 0 {
		return 0, 0, false
	}
	return ppid, f[0][0], true
}

// statOfAny reports whether process pid is alive (not a zombie).
func statOfAny(pid int) (int, byte, bool) {
	ppid, st, ok := statOf(pid)
	return ppid, st, ok && st != 'Z' && st != 'X'
}
