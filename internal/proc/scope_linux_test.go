//go:build linux

package proc

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// scopeChildEnv makes the test binary the child of TestSandboxScopesIPC.
const scopeChildEnv = "GIT_NUDGE_PROC_TEST_SCOPE"

// TestSandboxScopesIPC: where Landlock has IPC scopes (ABI 6, Linux
// 6.12), a confined command can neither signal a process outside the
// sandbox (its git-nudge, to skip the put-back that follows the command;
// the user's editor or shell) nor connect to an abstract UNIX socket that
// an unconfined process listens on (an X11 display, to type into the
// user's terminal window; a D-Bus session bus). The child listens on an
// abstract socket before it confines itself.
func TestSandboxScopesIPC(t *testing.T) {
	if os.Getenv(scopeChildEnv) != "" {
		scopeChild()
		return
	}
	abi, err := SandboxABI()
	if err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	if abi < 6 {
		t.Skipf("Landlock ABI %d has no IPC scopes (version 6 has)", abi)
	}
	s := confinedChild(t, "TestSandboxScopesIPC", scopeChildEnv)
	if !strings.Contains(s, "RESULT: scoped") {
		t.Fatalf("a confined command still reaches outside its sandbox:\n%s", s)
	}
}

// confinedChild runs the test binary again as test's child (env set), which
// confines itself and prints "RESULT: ..." (or "SKIP: why"), and returns
// what it printed: the test is skipped on SKIP, and fails when the child
// failed without a result.
func confinedChild(t *testing.T, test, env string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), env+"=1")
	out, err := cmd.CombinedOutput()
	s := string(out)
	switch {
	case strings.Contains(s, "SKIP:"):
		t.Skip(strings.TrimSpace(s[strings.Index(s, "SKIP:")+5:]))
	case err != nil && !strings.Contains(s, "RESULT:"):
		t.Fatalf("child: %v\n%s", err, s)
	}
	return s
}

func scopeChild() {
	say := func(f string, a ...any) { fmt.Printf(f+"\n", a...); os.Exit(0) }
	name := fmt.Sprintf("@git-nudge-scope-test-%d", os.Getpid())
	l, err := net.Listen("unix", name)
	if err != nil {
		say("RESULT: cannot listen on %s: %v", name, err)
	}
	defer l.Close()
	if err := confine([]string{os.TempDir()}); err != nil {
		say("RESULT: confine failed: %v", err)
	}
	var leaks []string
	if err := unix.Kill(os.Getppid(), 0); err == nil {
		leaks = append(leaks, "signalled its parent")
	}
	if c, err := net.Dial("unix", name); err == nil {
		c.Close()
		leaks = append(leaks, "connected to an abstract socket made outside")
	}
	if len(leaks) > 0 {
		say("RESULT: %s", strings.Join(leaks, "; "))
	}
	say("RESULT: scoped")
}
