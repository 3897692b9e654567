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

// The filter also refuses to set the setuid and setgid bits (chmod,
// fchmod, fchmodat, fchmodat2, and a file created with them by open,
// openat, creat, mknod or mknodat): a task could otherwise copy a shell
// into a folder another local user can reach and make it setuid, giving
// that user a shell running as the user. openat2, whose mode is
// in a structure a filter cannot read, fails with ENOSYS, which the C
// libraries answer by using openat.

// check is what the filter does with a system call it lists.
type check int

const (
	checkIoctl  check = iota // arg 1 is TIOCSTI or TIOCLINUX: EPERM
	checkMode1               // arg 1 (a mode) has S_ISUID or S_ISGID: EPERM
	checkMode2               // the same for arg 2
	checkOpen12              // arg 1 (flags) creates a file and arg 2 (its mode) has S_ISUID or S_ISGID: EPERM
	checkOpen23              // the same with flags in arg 2 and the mode in arg 3
	checkNoSys               // always ENOSYS
)

// rule is one system call number and its check.
type rule struct {
	nr    uint32
	check check
}

// x32 is the bit that x32 system call numbers carry on amd64.
const x32 = 0x40000000

// filterCalls are, per architecture (AUDIT_ARCH value) this binary's
// processes can make system calls in, the calls the filter looks at: the
// native numbers and the compatibility ones (i386 and x32 on amd64, arm
// on arm64), which a command could otherwise use to go around it.
var filterCalls = map[string]map[uint32][]rule{
	"amd64": {
		unix.AUDIT_ARCH_X86_64: withX32([]rule{{16, checkIoctl}, {90, checkMode1}, {91, checkMode1}, {268, checkMode2}, {452, checkMode2},
			{2, checkOpen12}, {85, checkMode1}, {257, checkOpen23}, {133, checkMode1}, {259, checkMode2}, {437, checkNoSys}},
			rule{x32 | 514, checkIoctl}),
		unix.AUDIT_ARCH_I386: {{54, checkIoctl}, {15, checkMode1}, {94, checkMode1}, {306, checkMode2}, {452, checkMode2},
			{5, checkOpen12}, {8, checkMode1}, {295, checkOpen23}, {14, checkMode1}, {297, checkMode2}, {437, checkNoSys}},
	},
	"arm64": {
		unix.AUDIT_ARCH_AARCH64: {{29, checkIoctl}, {52, checkMode1}, {53, checkMode2}, {452, checkMode2},
			{56, checkOpen23}, {33, checkMode2}, {437, checkNoSys}},
		unix.AUDIT_ARCH_ARM: {{54, checkIoctl}, {15, checkMode1}, {94, checkMode1}, {333, checkMode2}, {452, checkMode2},
			{5, checkOpen12}, {8, checkMode1}, {322, checkOpen23}, {14, checkMode1}, {324, checkMode2}, {437, checkNoSys}},
	},
	"riscv64": {
		unix.AUDIT_ARCH_RISCV64: {{29, checkIoctl}, {52, checkMode1}, {53, checkMode2}, {452, checkMode2},
			{56, checkOpen23}, {33, checkMode2}, {437, checkNoSys}},
	},
}

// withX32 is rules plus the x32 numbers of those (other than ioctl,
// whose x32 number differs and is given in extra).
func withX32(rules []rule, extra ...rule) []rule {
	out := append([]rule{}, rules...)
	for _, r := range rules {
		if r.check != checkIoctl {
			out = append(out, rule{x32 | r.nr, r.check})
		}
	}
	return append(out, extra...)
}

// tiocsti and tioclinux are the request numbers refused (the same on
// every architecture filterCalls lists).
const (
	tiocsti   = 0x5412
	tioclinux = 0x541C
)

// setid are the mode bits refused; creating are the open flags with
// which open takes a mode (O_CREAT, and O_TMPFILE's own bit).
const (
	setid    = unix.S_ISUID | unix.S_ISGID
	creating = unix.O_CREAT | 0o20000000
)

// Offsets in struct seccomp_data: nr, arch, then the six 64-bit args
// (little-endian on every architecture listed: an arg's low 32 bits,
// which hold the ioctl request, a mode or open's flags, come first).
const (
	offNr    = 0
	offArch  = 4
	bpfLdAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJset  = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	bpfRet   = unix.BPF_RET | unix.BPF_K
)

func offArg(i int) uint32 { return uint32(16 + 8*i) }

// sandboxFilter is the filter program for arches (AUDIT_ARCH -> rules):
//
//	per arch:  ld arch; jeq ARCH else next arch
//	           ld nr; jeq NR -> its check (each rule); ret allow
//	           ret allow (an architecture not listed)
//	checks:    one block per kind of check, ending in allow or deny
//	deny:      ret errno EPERM
func sandboxFilter(arches map[uint32][]rule) []unix.SockFilter {
	allow := unix.SockFilter{Code: bpfRet, K: unix.SECCOMP_RET_ALLOW}
	archs := make([]uint32, 0, len(arches))
	for a := range arches {
		archs = append(archs, a)
	}
	sort.Slice(archs, func(i, j int) bool { return archs[i] < archs[j] })
	var prog []unix.SockFilter
	toCheck := map[check][]int{} // jeq instructions whose true branch goes to a check
	for _, a := range archs {
		rules := arches[a]
		block := 1 + len(rules) + 1 // ld nr, the jeqs, ret allow
		prog = append(prog,
			unix.SockFilter{Code: bpfLdAbs, K: offArch},
			unix.SockFilter{Code: bpfJeq, K: a, Jf: uint8(block)},
			unix.SockFilter{Code: bpfLdAbs, K: offNr})
		for _, r := range rules {
			toCheck[r.check] = append(toCheck[r.check], len(prog))
			prog = append(prog, unix.SockFilter{Code: bpfJeq, K: r.nr})
		}
		prog = append(prog, allow)
	}
	prog = append(prog, allow)
	var toDeny []int // instructions whose true branch goes to deny
	for c := checkIoctl; c <= checkNoSys; c++ {
		if len(toCheck[c]) == 0 {
			continue
		}
		for _, i := range toCheck[c] {
			prog[i].Jt = jump(i, len(prog))
		}
		switch c {
		case checkIoctl:
			toDeny = append(toDeny, len(prog)+1, len(prog)+2)
			prog = append(prog,
				unix.SockFilter{Code: bpfLdAbs, K: offArg(1)},
				unix.SockFilter{Code: bpfJeq, K: tiocsti},
				unix.SockFilter{Code: bpfJeq, K: tioclinux},
				allow)
		case checkMode1, checkMode2:
			arg := 1
			if c == checkMode2 {
				arg = 2
			}
			toDeny = append(toDeny, len(prog)+1)
			prog = append(prog,
				unix.SockFilter{Code: bpfLdAbs, K: offArg(arg)},
				unix.SockFilter{Code: bpfJset, K: setid},
				allow)
		case checkOpen12, checkOpen23:
			flags := 1
			if c == checkOpen23 {
				flags = 2
			}
			toDeny = append(toDeny, len(prog)+3)
			prog = append(prog,
				unix.SockFilter{Code: bpfLdAbs, K: offArg(flags)},
				unix.SockFilter{Code: bpfJset, K: creating, Jf: 2}, // not creating: allow
				unix.SockFilter{Code: bpfLdAbs, K: offArg(flags + 1)},
				unix.SockFilter{Code: bpfJset, K: setid},
				allow)
		case checkNoSys:
			prog = append(prog, unix.SockFilter{Code: bpfRet, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)})
		}
	}
	deny := len(prog)
	for _, i := range toDeny {
		prog[i].Jt = jump(i, deny)
	}
	return append(prog, unix.SockFilter{Code: bpfRet, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)})
}

// jump is the offset of a jump at from to instruction to (BPF jumps are
// relative to the next instruction, and at most 255 forward).
func jump(from, to int) uint8 {
	d := to - from - 1
	if d < 0 || d > 255 {
		panic(fmt.Sprintf("seccomp filter: jump of %d instructions", d))
	}
	return uint8(d)
}

// installFilter sets no_new_privs (no setuid program, no file
// capability gains anything from here on) and installs the filter for
// every thread of this process (which then executes the command); the
// filter is inherited by everything the command starts and cannot be
// removed. Where the architecture is not listed only no_new_privs is set
// (it says nothing: the namespaces or Landlock still confine).
func installFilter() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	arches, ok := filterCalls[runtime.GOARCH]
	if !ok {
		return nil
	}
	prog := sandboxFilter(arches)
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if e != 0 {
		return fmt.Errorf("seccomp filter (terminal injection, setuid bits): %w", e)
	}
	return nil
}
