package proc

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestExitStatus(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want int
	}{
		{[]string{"sh", "-c", "exit 0"}, 0},
		{[]string{"sh", "-c", "exit 3"}, 3},
		{[]string{"sh", "-c", "kill -TERM $$"}, 128 + int(syscall.SIGTERM)},
	} {
		code, err := Run(Spec{Argv: c.argv})
		if err != nil || code != c.want {
			t.Errorf("%v: code %d, err %v; want %d", c.argv, code, err, c.want)
		}
	}
	code, err := Run(Spec{Argv: []string{"no-such-program-here"}})
	if code != 127 || !errors.Is(err, ErrNotStarted) {
		t.Errorf("missing program: code %d, err %v; want 127 and ErrNotStarted", code, err)
	}
}

func TestOutputAndForwardedSignal(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	var out bytes.Buffer
	go func() {
		time.Sleep(200 * time.Millisecond)
		sigs <- syscall.SIGTERM
	}()
	code, err := Run(Spec{
		Argv:    []string{"sh", "-c", `trap 'echo got TERM; exit 7' TERM; echo ready; while :; do sleep 0.05; done`},
		Stdout:  &out,
		Signals: sigs,
	})
	if err != nil || code != 7 || !strings.Contains(out.String(), "ready\ngot TERM") {
		t.Errorf("code %d, err %v, output %q; want 7 with the trap's output", code, err, out.String())
	}
}

// With a group of its own, what the program leaves running is stopped
// when it exits.
func TestStopGroup(t *testing.T) {
	var out bytes.Buffer
	code, err := Run(Spec{
		Argv:   []string{"sh", "-c", "sleep 60 & echo $!"},
		Stdout: &out, Group: true, StopGroup: true,
	})
	if err != nil || code != 0 {
		t.Fatalf("code %d, err %v", code, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	// Gone, or a zombie not yet reaped by whoever adopted it.
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err == nil {
		if f := strings.Fields(string(st)); len(f) > 2 && f[2] != "Z" {
			t.Errorf("leftover process %d still running (state %s)", pid, f[2])
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
