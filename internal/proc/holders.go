package proc

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Holder is a live process that uses a folder: its working directory,
// its root, its program or an open file is inside it.
type Holder struct {
	PID  int
	What string // "working directory", "root", "program", "open file"
}

func (h Holder) String() string { return fmt.Sprintf("pid %d (%s)", h.PID, h.What) }

// Holders lists the live processes other than this one that use dir (read
// from /proc: cwd, root, exe and every open descriptor), at most one entry
// per process, by pid. ok is false when /proc cannot be read: the caller
// cannot tell then, and must treat dir as in use. A process this user
// cannot inspect is not listed (another user's process cannot write in a
// task's worktree through this user's rights anyway).
func Holders(dir string) (hs []Holder, ok bool) {
	ents, err := os.ReadDir("/proc")
	if err != nil || len(ents) == 0 {
		return nil, false
	}
	real := filepath.Clean(dir)
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		real = r
	}
	inside := func(target string) bool {
		target = strings.TrimSuffix(target, " (deleted)")
		return target == real || strings.HasPrefix(target, real+string(filepath.Separator))
	}
	self := os.Getpid()
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		base := filepath.Join("/proc", e.Name())
		what := ""
		for _, l := range []struct{ link, what string }{{"cwd", "working directory"}, {"root", "root"}, {"exe", "program"}} {
			if t, err := os.Readlink(filepath.Join(base, l.link)); err == nil && inside(t) {
				what = l.what
				break
			}
		}
		if what == "" {
			fds, _ := os.ReadDir(filepath.Join(base, "fd"))
			for _, fd := range fds {
				if t, err := os.Readlink(filepath.Join(base, "fd", fd.Name())); err == nil && inside(t) {
					what = "open file"
					break
				}
			}
		}
		if what != "" {
			if _, _, alive := statOfAny(pid); alive {
				hs = append(hs, Holder{PID: pid, What: what})
			}
		}
	}
	sort.Slice(hs, func(i, j int) bool { return hs[i].PID < hs[j].PID })
	return hs, true
}

// InDir reports whether a live process other than this one uses dir
// (see Holders), and true when that cannot be known.
func InDir(dir string) bool {
	hs, ok := Holders(dir)
	return !ok || len(hs) > 0
}

// DescribeHolders is the refusal text for processes using dir: their
// pids and what to do.
func DescribeHolders(dir string, hs []Holder, ok bool) (reason, next string) {
	if !ok {
		return fmt.Sprintf("whether a process still uses %s cannot be known here (/proc cannot be read)", dir),
			"Make sure nothing the task started still runs, then try again."
	}
	parts := make([]string, len(hs))
	pids := make([]string, len(hs))
	for i, h := range hs {
		parts[i], pids[i] = h.String(), strconv.Itoa(h.PID)
	}
	return fmt.Sprintf("processes still use its worktree %s: %s", dir, strings.Join(parts, ", ")),
		fmt.Sprintf("End them (kill %s), or wait for them to finish, then try again; nothing was removed.", strings.Join(pids, " "))
}
