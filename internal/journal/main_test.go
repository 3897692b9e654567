package journal_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// helperEnv selects a helper role when the test binary is run again as a
// second process (the standard re-exec pattern): "hold PATH MARKER" or
// "wait PATH MARKER".
const helperEnv = "JOURNAL_TEST_HELPER"

func TestMain(m *testing.M) {
	if role := os.Getenv(helperEnv); role != "" {
		os.Exit(helper(strings.Fields(role)))
	}
	os.Exit(m.Run())
}

// helper runs one role in a child process and returns its exit status.
//
//	hold PATH MARKER: take the lock, print "locked", wait for stdin to
//	  close, create MARKER, release.
//	wait PATH MARKER: print "held=<Held(PATH)>", take the lock waiting up
//	  to a minute, print "acquired marker=<MARKER exists>", release.
//	inherit PATH -: take the lock with AcquireInheritable, start a
//	  "linger" child that inherits it (and this stdin), print "locked",
//	  then wait to be killed.
//	linger - -: wait for stdin to close.
func helper(args []string) int {
	ctx := context.Background()
	if len(args) != 3 {
		fmt.Fprintln(os.Stderr, "bad helper args", args)
		return 2
	}
	path, marker := args[1], args[2]
	switch args[0] {
	case "hold":
		l, err := journal.Acquire(ctx, path, 10*time.Second, "test holder")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println("locked")
		_, _ = io.Copy(io.Discard, os.Stdin)
		if err := os.WriteFile(marker, nil, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if err := l.Release(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	case "wait":
		held, err := journal.Held(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("held=%v\n", held)
		l, err := journal.Acquire(ctx, path, time.Minute, "test waiter")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		_, statErr := os.Stat(marker)
		fmt.Printf("acquired marker=%v\n", statErr == nil)
		if err := l.Release(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	case "inherit":
		l, err := journal.AcquireInheritable(ctx, path, 10*time.Second, "test inheritor")
		if err != nil || l.File() == nil {
			fmt.Fprintln(os.Stderr, "no inheritable lock:", err)
			return 1
		}
		c := lingerCommand()
		c.Stdin = os.Stdin
		c.ExtraFiles = []*os.File{l.File()}
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println("locked")
		time.Sleep(time.Hour)
		return 1
	case "linger":
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown helper role", args[0])
	return 2
}

// child is a running helper process.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

func startHelper(t *testing.T, role ...string) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(exe, "-test.run=^$")
	c.Env = append(os.Environ(), helperEnv+"="+strings.Join(role, " "))
	c.Stderr = os.Stderr
	stdin, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	ch := &child{cmd: c, stdin: stdin, out: bufio.NewReader(stdout)}
	t.Cleanup(func() {
		_ = ch.stdin.Close()
		if ch.cmd.ProcessState == nil {
			_ = ch.cmd.Process.Kill()
			_ = ch.cmd.Wait()
		}
	})
	return ch
}

// expect reads the child's next line and fails unless it is want.
func (c *child) expect(t *testing.T, want string) {
	t.Helper()
	line, err := c.out.ReadString('\n')
	if strings.TrimSuffix(line, "\n") != want {
		t.Fatalf("helper pid %d said %q (%v), want %q", c.cmd.Process.Pid, line, err, want)
	}
}

// lingerCommand is this test binary as a "linger" helper.
func lingerCommand() *exec.Cmd {
	exe, _ := os.Executable()
	c := exec.Command(exe, "-test.run=^$")
	c.Env = append(os.Environ(), helperEnv+"=linger - -")
	c.Stderr = os.Stderr
	return c
}
