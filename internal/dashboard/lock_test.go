package dashboard_test

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/nudgethis/git-nudge/internal/dashboard"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// dashProc is `git nudge dashboard --no-open` running as a process of its
// own (this test binary run again as git-nudge).
type dashProc struct {
	cmd    *exec.Cmd
	stdout *bufio.Reader
	stderr *strings.Builder
}

func gitNudge(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(exe, args...)
	c.Dir = dir
	c.Env = append(testutil.Env(), helperEnv+"=git-nudge", "DISPLAY=")
	return c
}

func startDashboard(t *testing.T, dir string) (*dashProc, string) {
	t.Helper()
	c := gitNudge(t, dir, "dashboard", "--no-open")
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &dashProc{cmd: c, stdout: bufio.NewReader(out), stderr: &strings.Builder{}}
	c.Stderr = p.stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c.ProcessState == nil {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	})
	line, err := p.stdout.ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "Dashboard: ")
	if err != nil || !ok || !strings.HasPrefix(addr, "http://127.0.0.1:") || !strings.Contains(addr, "/?token=") {
		t.Fatalf("first line %q (%v); stderr %s", line, err, p.stderr)
	}
	return p, addr
}

func TestOneServerPerWorkspaceAndStop(t *testing.T) {
	t.Parallel()
	dir := workspace(t)
	p, addr := startDashboard(t, dir)

	// It answers, with the token from the address.
	resp, err := http.Get(addr)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "git nudge") {
		t.Fatalf("GET %s: %d\n%s", addr, resp.StatusCode, body)
	}

	// A second start prints the running one's address and ends.
	out, err := gitNudge(t, filepath.Join(dir), "dashboard", "--no-open").Output()
	if err != nil || strings.TrimSpace(string(out)) != "Dashboard: "+addr {
		t.Fatalf("second start: %v %q, want the running one's %q", err, out, addr)
	}
	// git autodev dashboard finds it too, on the checkpoints page.
	ad := gitNudge(t, dir, "dashboard", "--no-open")
	ad.Env = append(ad.Env, helperEnv+"=git-autodev")
	out, err = ad.Output()
	if err != nil || strings.TrimSpace(string(out)) != "Dashboard: "+strings.Replace(addr, "?token=", "?page=checkpoints&token=", 1) {
		t.Fatalf("third start: %v %q", err, out)
	}

	// An open event stream does not hold the shutdown up.
	ereq, _ := http.NewRequest("GET", strings.Split(addr, "?")[0]+"api/events", nil)
	ereq.Header.Set("Authorization", "Bearer "+strings.SplitN(addr, "token=", 2)[1])
	events, err := http.DefaultClient.Do(ereq)
	if err != nil || events.StatusCode != 200 {
		t.Fatalf("events: %v %v", events, err)
	}
	defer events.Body.Close()
	if line, err := bufio.NewReader(events.Body).ReadString('\n'); err != nil || !strings.HasPrefix(line, "retry:") {
		t.Fatalf("events: %q %v", line, err)
	}

	// --stop ends it and server.lock is free again.
	out, err = gitNudge(t, dir, "dashboard", "--stop").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "Stopped the dashboard") {
		t.Fatalf("--stop: %v %s", err, out)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("the stopped dashboard exited with %v; stderr %s", err, p.stderr)
	}
	if run, err := dashboard.Find(filepath.Join(dir, ".nudgethis")); run != nil || err != nil {
		t.Fatalf("after --stop: %+v %v", run, err)
	}
	out, err = gitNudge(t, dir, "dashboard", "--stop").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "No dashboard runs for this workspace." {
		t.Fatalf("--stop with none running: %v %s", err, out)
	}
}

// A server.lock left by a crash (kill -9) is not trusted: the next start
// serves, with a new token.
func TestCrashLeavesNoStaleLock(t *testing.T) {
	t.Parallel()
	dir := workspace(t)
	p, addr := startDashboard(t, dir)
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Wait()
	if _, err := os.Stat(filepath.Join(dir, ".nudgethis", dashboard.LockName)); err != nil {
		t.Fatalf("server.lock: %v", err)
	}
	p2, addr2 := startDashboard(t, dir)
	if addr2 == addr {
		t.Fatalf("the new server reused the crashed one's address and token: %s", addr2)
	}
	if err := p2.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p2.cmd.Wait(); err != nil || !strings.Contains(p2.stderr.String(), "Dashboard stopped.") {
		t.Fatalf("SIGTERM: %v; stderr %s", err, p2.stderr)
	}
}
