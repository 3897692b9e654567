//go:build linux

package proc

import (
	"fmt"
	"runtime"
	"sort"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Terminal injection. A confined command usually has the user's terminal
// as its stdin; Landlock leaves ioctls on such an already open terminal
// alone. TIOCSTI pushes characters into the terminal's input queue, and
// TIOCLINUX (a virtual console's selection paste) can do the same: the
// user's shell reads them as a command line typed by the user after
// git-nudge exits, and runs it unconfined. A seccomp filter makes both
// ioctls fail with EPERM for the command and everything it starts (the
// filter is inherited and cannot be removed). Other ioctls are allowed.

// ioctlCalls are, per architecture (AUDIT_ARCH value) this binary's
// processes can make system calls in, the numbers of ioctl: the native
// one and the compatibility ones (i386 and x32 on amd64, arm on arm64),
// which a command could otherwise use to go around the filter.
var ioctlCalls = map[string]map[uint32][]uint32{
	"amd64":   {unix.AUDIT_ARCH_X86_64: {16, 0x40000000 | 514}, unix.AUDIT_ARCH_I386: {54}},
	"arm64":   {unix.AUDIT_ARCH_AARCH64: {29}, unix.AUDIT_ARCH_ARM: {54}},
	"riscv64": {unix.AUDIT_ARCH_RISCV64: {29}},
}

// tiocsti and tioclinux are the request numbers refused (the same on
// every architecture ioctlCalls lists).
const (
	tiocsti   = 0x5412
	tioclinux = 0x541C
)

// Offsets in struct seccomp_data: nr, arch, then args (little-endian:
// the low 32 bits of args[1], the ioctl request, come first).
const (
	offNr    = 0
	offArch  = 4
	offArg1  = 16 + 8
	bpfLdAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfRet   = unix.BPF_RET | unix.BPF_K
)

// terminalFilter is the filter program for arches (AUDIT_ARCH -> ioctl
// numbers):
//
//	per arch:  ld arch; jeq ARCH else next arch
//	           ld nr; jeq NR -> check (each number); ret allow
//	           ret allow (an architecture not listed)
//	check:     ld request; jeq TIOCSTI -> deny; jeq TIOCLINUX -> deny; ret allow
//	deny:      ret errno EPERM
func terminalFilter(arches map[uint32][]uint32) []unix.SockFilter {
	allow := unix.SockFilter{Code: bpfRet, K: unix.SECCOMP_RET_ALLOW}
	archs := make([]uint32, 0, len(arches))
	for a := range arches {
		archs = append(archs, a)
	}
	sort.Slice(archs, func(i, j int) bool { return archs[i] < archs[j] })
	var prog []unix.SockFilter
	var toCheck []int // jeq instructions whose true branch goes to check
	for _, a := range archs {
		nrs := arches[a]
		block := 1 + len(nrs) + 1 // ld nr, the jeqs, ret allow
		prog = append(prog,
			unix.SockFilter{Code: bpfLdAbs, K: offArch},
			unix.SockFilter{Code: bpfJeq, K: a, Jf: uint8(block)},
			unix.SockFilter{Code: bpfLdAbs, K: offNr})
		for _, nr := range nrs {
			toCheck = append(toCheck, len(prog))
			prog = append(prog, unix.SockFilter{Code: bpfJeq, K: nr})
		}
		prog = append(prog, allow)
	}
	prog = append(prog, allow)
	check := len(prog)
	for _, i := range toCheck {
		prog[i].Jt = uint8(check - i - 1)
	}
	return append(prog,
		unix.SockFilter{Code: bpfLdAbs, K: offArg1},
		unix.SockFilter{Code: bpfJeq, K: tiocsti, Jt: 2},
		unix.SockFilter{Code: bpfJeq, K: tioclinux, Jt: 1},
		allow,
		unix.SockFilter{Code: bpfRet, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)})
}

// refuseTerminalInjection installs the filter for every thread of this
// process (which then executes the command). It is a no-op where the
// architecture is not listed (it says nothing: Landlock still confines).
func refuseTerminalInjection() error {
	arches, ok := ioctlCalls[runtime.GOARCH]
	if !ok {
		return nil
	}
	prog := terminalFilter(arches)
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	// no_new_privs is already set (Landlock needs it); set again in case.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if e != 0 {
		return fmt.Errorf("seccomp filter against terminal injection: %w", e)
	}
	return nil
}
