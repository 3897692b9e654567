//go:build linux

package proc

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// tiocstiChildEnv makes the test binary the child of
// TestSandboxBlocksTerminalInjection.
const tiocstiChildEnv = "GIT_NUDGE_PROC_TEST_TIOCSTI"

// TestSandboxBlocksTerminalInjection: a confined command that has the
// user's terminal (its stdin, when git nudge run --sandbox is started
// from a shell) must not push characters into that terminal's input
// (TIOCSTI) or through the console's selection (TIOCLINUX): the user's
// shell would read them as a command line typed by the user once
// git-nudge exits, and run it outside the sandbox. The child makes a
// terminal its controlling one, checks that it can inject before being
// confined (else the kernel already forbids it: skipped), confines
// itself and tries again.
func TestSandboxBlocksTerminalInjection(t *testing.T) {
	if os.Getenv(tiocstiChildEnv) != "" {
		tiocstiChild()
		return
	}
	if _, err := SandboxABI(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	s := confinedChild(t, "TestSandboxBlocksTerminalInjection", tiocstiChildEnv)
	if !strings.Contains(s, "RESULT: blocked") {
		t.Fatalf("a confined command could still inject input into its terminal:\n%s", s)
	}
}

func tiocstiChild() {
	say := func(f string, a ...any) { fmt.Printf(f+"\n", a...); os.Exit(0) }
	master, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		say("SKIP: no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(master, unix.TIOCSPTLCK, 0); err != nil {
		say("SKIP: unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(master, unix.TIOCGPTN)
	if err != nil {
		say("SKIP: ptsname: %v", err)
	}
	slave, err := unix.Open(fmt.Sprintf("/dev/pts/%d", n), unix.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		say("SKIP: opening the terminal: %v", err)
	}
	if _, err := unix.Setsid(); err != nil {
		say("SKIP: setsid: %v", err)
	}
	if err := unix.IoctlSetInt(slave, unix.TIOCSCTTY, 0); err != nil {
		say("SKIP: controlling terminal: %v", err)
	}
	inject := func() error {
		c := byte('x')
		_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(slave), uintptr(unix.TIOCSTI), uintptr(unsafe.Pointer(&c)))
		if e != 0 {
			return e
		}
		return nil
	}
	if err := inject(); err != nil {
		say("SKIP: this kernel already refuses TIOCSTI (dev.tty.legacy_tiocsti=0?): %v", err)
	}
	if err := confine([]string{os.TempDir()}); err != nil {
		say("RESULT: confine failed: %v", err)
	}
	if err := inject(); err == nil {
		say("RESULT: injected")
	}
	c := byte(12) // TIOCL_GETSHIFTSTATE-like subcode; any TIOCLINUX call must be refused
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(slave), uintptr(unix.TIOCLINUX), uintptr(unsafe.Pointer(&c)))
	if e != unix.EPERM {
		say("RESULT: TIOCLINUX not refused (%v)", e)
	}
	// Other terminal ioctls (raw mode, window size) still work.
	if _, err := unix.IoctlGetTermios(slave, unix.TCGETS); err != nil {
		say("RESULT: TCGETS refused too: %v", err)
	}
	if _, err := unix.IoctlGetWinsize(slave, unix.TIOCGWINSZ); err != nil {
		say("RESULT: TIOCGWINSZ refused too: %v", err)
	}
	say("RESULT: blocked")
}
