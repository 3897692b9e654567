package proc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

// The sandbox's engine (docs/SECURITY.md): bubblewrap puts the command in its own
// user, mount, PID, IPC, UTS, cgroup and (unless asked otherwise) network
// namespaces, with the whole file system read-only (metadata included)
// but for the folders it may write, and with the workspace's state
// folder hidden. Inside, git-nudge runs again as the sandbox helper
// (SandboxMain with EngineBwrap), which sets the process limit and the
// seccomp filter and executes the command. Landlock (confine) is the
// fallback where bubblewrap or user namespaces are missing.

// Engine is how a sandboxed command is confined.
type Engine string

const (
	EngineBwrap    Engine = "bwrap"
	EngineLandlock Engine = "landlock"
)

// NoBwrapEnv is a test-only variable: when set, BwrapProbe reports that
// bubblewrap cannot be used, so that tests can run the Landlock fallback
// on any machine.
const NoBwrapEnv = "GIT_NUDGE_TEST_NO_BWRAP"

// ErrNoBwrap says that bubblewrap cannot confine a command here.
var ErrNoBwrap = errors.New("bubblewrap cannot run here")

// BwrapProbe finds bwrap (PATH, then /usr/bin) and checks that it can
// make the namespaces the sandbox needs, by running true in them once.
// It returns bwrap's path, or an error wrapping ErrNoBwrap saying why not.
func BwrapProbe() (string, error) {
	if os.Getenv(NoBwrapEnv) != "" {
		return "", fmt.Errorf("%w (%s is set: a test pretends it is missing)", ErrNoBwrap, NoBwrapEnv)
	}
	if runtime.GOOS != "linux" {
		return "", fmt.Errorf("%w: it needs Linux", ErrNoBwrap)
	}
	path, err := lookPath("bwrap")
	if err != nil {
		if _, serr := os.Stat("/usr/bin/bwrap"); serr != nil {
			return "", fmt.Errorf("%w: bwrap is not installed (Debian and Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)", ErrNoBwrap)
		}
		path = "/usr/bin/bwrap"
	}
	truePath, err := lookPath("true")
	if err != nil {
		truePath = path
	}
	args := []string{"--ro-bind", "/", "/", "--unshare-user", "--unshare-pid", "--die-with-parent", "--", truePath}
	if truePath == path {
		args = append(args, "--version")
	}
	out, err := combinedOutput(path, args...)
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("%w: %s cannot make a user namespace (%s); user namespaces may be turned off (sysctl kernel.unprivileged_userns_clone, user.max_user_namespaces) or forbidden by an AppArmor policy", ErrNoBwrap, path, msg)
	}
	return path, nil
}

// Bwrap is the confinement of one command under bubblewrap. Paths are
// absolute and free of symlinks.
type Bwrap struct {
	Path string // the bwrap binary
	// Hide are folders covered by an empty read-only file system: the
	// workspace's state folder (its other tasks' worktrees), /tmp and
	// /run (the user's sockets: a D-Bus bus, ssh-agent, a display).
	Hide []string
	// ReadOnly are paths seen read-only again below a hidden folder
	// (a workspace or HOME under /tmp).
	ReadOnly []string
	// Writable are the only paths the command may change.
	Writable []string
	// Network keeps the user's network (nudge.sandbox.network=host);
	// otherwise the command has its own, with only a loopback of its own.
	Network bool
	// Exe is the git-nudge binary to run inside as the sandbox helper,
	// seen there at ExeDest (a name ending in git-nudge).
	Exe, ExeDest string
	// Dir is the folder the command starts in.
	Dir string
	// MaxProcs is RLIMIT_NPROC inside (0: unchanged).
	MaxProcs int
	// CloseFD, when >= 3, is a descriptor the helper closes before it
	// executes the command (the task's lock, which the sandbox's own
	// processes keep holding while it lasts).
	CloseFD int
}

// mount is one of bwrap's file system operations.
type mount struct {
	op, path string
}

// Argv is the bwrap command line running argv confined.
func (b Bwrap) Argv(argv []string) []string {
	out := []string{b.Path,
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
		"--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--die-with-parent", "--new-session", "--cap-drop", "ALL"}
	if !b.Network {
		out = append(out, "--unshare-net")
	}
	// Each mount after those of the folders above it: a deeper path
	// is mounted later, so that it shows through what covers its parent.
	var ms []mount
	for _, p := range b.Hide {
		ms = append(ms, mount{"--tmpfs", p})
	}
	for _, p := range b.ReadOnly {
		ms = append(ms, mount{"--ro-bind", p})
	}
	for _, p := range b.Writable {
		ms = append(ms, mount{"--bind", p})
	}
	sort.SliceStable(ms, func(i, j int) bool { return depth(ms[i].path) < depth(ms[j].path) })
	for _, m := range ms {
		if m.op == "--tmpfs" {
			out = append(out, m.op, m.path)
		} else {
			out = append(out, m.op, m.path, m.path)
		}
	}
	out = append(out, "--ro-bind", b.Exe, b.ExeDest)
	// The hidden folders' own file systems become read-only last, once
	// the mount points the binds needed in them were made.
	for _, p := range b.Hide {
		out = append(out, "--remount-ro", p)
	}
	if b.Dir != "" {
		out = append(out, "--chdir", b.Dir)
	}
	out = append(out, "--", b.ExeDest, SandboxArg, "-engine", string(EngineBwrap))
	if b.MaxProcs > 0 {
		out = append(out, "-nproc", strconv.Itoa(b.MaxProcs))
	}
	if b.CloseFD >= 3 {
		out = append(out, "-close", strconv.Itoa(b.CloseFD))
	}
	out = append(out, "--")
	return append(out, argv...)
}

// depth is the number of names in path.
func depth(path string) int {
	return len(strings.Split(strings.Trim(filepath.Clean(path), "/"), "/"))
}

// Under reports whether path is dir or lies below it.
func Under(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && filepath.IsLocal(rel)
}
