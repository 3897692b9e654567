package proc

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
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

// readyWriter keeps what the program prints and closes ready once it has
// printed "ready\n" (its trap is set by then).
type readyWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ready chan struct{}
	once  sync.Once
}

func (w *readyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if strings.Contains(w.buf.String(), "ready\n") {
		w.once.Do(func() { close(w.ready) })
	}
	return n, err
}

func (w *readyWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// The signal is sent once the program says its trap is set (a fixed
// sleep before it let a slow start die of the signal itself).
func TestOutputAndForwardedSignal(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	out := &readyWriter{ready: make(chan struct{})}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-out.ready:
			sigs <- syscall.SIGTERM
		case <-done:
		}
	}()
	code, err := Run(Spec{
		Argv:    []string{"sh", "-c", `trap 'echo got TERM; exit 7' TERM; echo ready; while :; do sleep 0.05; done`},
		Stdout:  out,
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

// A program that cannot be started is named with the directory it was
// started in; one that starts is reported with its pid, and the files
// it inherits stay open in it.
func TestStartedDirAndInheritedFile(t *testing.T) {
	dir := t.TempDir()
	_, err := Run(Spec{Argv: []string{"./no-such-script.sh"}, Dir: dir})
	if err == nil || !strings.Contains(err.Error(), `"./no-such-script.sh" in `+dir) {
		t.Errorf("not started: %v; want the program and %s named", err, dir)
	}
	f, err := os.CreateTemp(dir, "inherited")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var started int
	var out bytes.Buffer
	code, err := Run(Spec{Argv: []string{"sh", "-c", "echo $$; echo via-fd-3 >&3"}, Stdout: &out,
		ExtraFiles: []*os.File{f}, Started: func(pid int) { started = pid }})
	if err != nil || code != 0 {
		t.Fatalf("code %d, err %v", code, err)
	}
	if got := strings.TrimSpace(out.String()); got != strconv.Itoa(started) {
		t.Errorf("Started reported pid %d; the program says %s", started, got)
	}
	if b, _ := os.ReadFile(f.Name()); string(b) != "via-fd-3\n" {
		t.Errorf("descriptor 3 got %q", b)
	}
}

func TestSandboxArgv(t *testing.T) {
	got := SandboxArgv("git-nudge", []string{"/w", "/t"}, []string{"-x", "--", "y"})
	want := []string{"git-nudge", SandboxArg, "-w", "/w", "-w", "/t", "--", "-x", "--", "y"}
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("SandboxArgv = %q, want %q", got, want)
	}
	if code := SandboxMain([]string{"-w"}); code != 126 {
		t.Errorf("bad helper arguments: exit %d, want 126", code)
	}
}

// TestShellFallback: a script without "#!" is run with /bin/sh by Run
// (as a shell would), with its arguments.
func TestShellFallback(t *testing.T) {
	dir := t.TempDir()
	script := dir + "/s"
	if err := os.WriteFile(script, []byte("echo \"sh ran $#: $1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	code, err := Run(Spec{Argv: []string{script, "a b"}, Stdout: &out})
	if err != nil || code != 0 {
		t.Fatalf("Run: %d, %v", code, err)
	}
	if got := out.String(); got != "sh ran 1: a b\n" {
		t.Fatalf("output %q", got)
	}
	if _, ok := ShellFallback(nil, script, []string{script}); ok {
		t.Fatal("fallback without an error")
	}
}
