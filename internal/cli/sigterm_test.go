package cli

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

const sigtermHelper = "NUDGE_CLI_SIGTERM_HELPER"

// TestSIGTERMEndsABlockedCommand: a command that catches
// signals to pass them on to a program (ForwardSignals) but is blocked on
// something else when SIGTERM comes, with no program running to take it,
// still ends, as an uncaught SIGTERM would end it. Before, the signal
// was caught and kept for a program that never came, and the command
// stayed blocked.
func TestSIGTERMEndsABlockedCommand(t *testing.T) {
	if os.Getenv(sigtermHelper) == "1" {
		env := NewProcessEnv(context.Background())
		fw := env.ForwardSignals()
		defer fw.Stop()
		os.Stdout.WriteString("ready\n")
		select {} // blocked for good (a fifo, a lock, a hung read)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(exe, "-test.run=^TestSIGTERMEndsABlockedCommand$")
	c.Env = append(os.Environ(), sigtermHelper+"=1")
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	if _, err := out.Read(buf); err != nil || !strings.HasPrefix(string(buf), "ready") {
		c.Process.Kill()
		t.Fatalf("helper: %q %v", buf, err)
	}
	if err := c.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err = <-done:
	case <-time.After(60 * time.Second): // a bound, not a measure: it ends within TermGrace
		c.Process.Kill()
		<-done
		t.Fatal("SIGTERM did not end the blocked command")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("the command ended with %v, want killed by SIGTERM", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("the command ended with %v, want killed by SIGTERM (143 to a shell)", err)
	}
}
