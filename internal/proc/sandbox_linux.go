//go:build linux

package proc

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// MinSandboxABI is the oldest Landlock ABI that confines every kind of
// write: version 3 added truncate (before it, truncate(2) of any file
// was allowed); version 2 added renaming and linking across folders.
const MinSandboxABI = 3

// sandboxWrites are the access rights the sandbox takes away everywhere
// except in the writable paths: every way of changing a file or a folder.
// Reading, executing and device ioctls are left alone.
const sandboxWrites = landlock.AccessFSSet(ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
	ll.AccessFSMakeChar | ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock |
	ll.AccessFSMakeFifo | ll.AccessFSMakeBlock | ll.AccessFSMakeSym | ll.AccessFSRefer | ll.AccessFSTruncate)

// SandboxABI probes the kernel: the Landlock ABI version it offers, or
// an error (wrapping ErrNoSandbox) saying why commands cannot be
// confined here.
func SandboxABI() (int, error) {
	if os.Getenv(NoLandlockEnv) != "" {
		return 0, fmt.Errorf("%w, which this Linux kernel does not offer (%s is set: a test pretends it is missing); it needs Linux 6.2 or later with Landlock enabled", ErrNoSandbox, NoLandlockEnv)
	}
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("%w, which this Linux kernel does not offer (%v); it needs Linux 6.2 or later with Landlock enabled (CONFIG_SECURITY_LANDLOCK, and landlock in the lsm= boot list)", ErrNoSandbox, err)
	}
	if v < MinSandboxABI {
		return v, fmt.Errorf("%w ABI version %d or later to confine every kind of write; this kernel offers version %d (Linux 6.2 or later has it)", ErrNoSandbox, MinSandboxABI, v)
	}
	return v, nil
}

// confine takes from this process, and all it will execute, the right to
// write anywhere but beneath writable. It fails rather than confine less.
func confine(writable []string) error {
	abi, err := SandboxABI()
	if err != nil {
		return err
	}
	var dirs, files []string
	for _, p := range writable {
		st, err := os.Stat(p)
		switch {
		case err != nil:
			return fmt.Errorf("writable path %s: %w", p, err)
		case st.IsDir():
			dirs = append(dirs, p)
		default:
			files = append(files, p)
		}
	}
	rules := []landlock.Rule{landlock.PathAccess(sandboxWrites, dirs...)}
	if len(files) > 0 {
		rules = append(rules, landlock.PathAccess(sandboxFileWrites, files...))
	}
	cfg := landlock.Config{HandledAccessFS: sandboxWrites}
	if abi >= scopeABI {
		// No signal to a process outside the sandbox (git-nudge itself,
		// which puts the worktree's git files back after the command;
		// the user's shell or editor), no connection to an abstract UNIX
		// socket made outside it (an X11 display, a D-Bus bus).
		cfg.Scoped = ll.ScopeSignal | ll.ScopeAbstractUnixSocket
	}
	if err := cfg.Restrict(rules...); err != nil {
		return err
	}
	return installFilter()
}

// sandboxFileWrites are the rights of sandboxWrites that apply to a file
// (rather than a folder's entries).
const sandboxFileWrites = landlock.AccessFSSet(ll.AccessFSWriteFile | ll.AccessFSTruncate)

// scopeABI is the first Landlock ABI with IPC scopes (Linux 6.12).
const scopeABI = 6

// confineInside is the helper's part inside bubblewrap's namespaces: at
// most nproc processes (RLIMIT_NPROC; 0 leaves it), then no_new_privs
// and the seccomp filter.
func confineInside(nproc int) error {
	if nproc > 0 {
		lim := unix.Rlimit{Cur: uint64(nproc), Max: uint64(nproc)}
		if err := unix.Setrlimit(unix.RLIMIT_NPROC, &lim); err != nil {
			return fmt.Errorf("process limit %d: %w", nproc, err)
		}
	}
	return installFilter()
}
