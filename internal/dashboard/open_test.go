package dashboard_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/dashboard"
)

// TestBrowserOpenedWithoutToken (docs/SECURITY.md): the browser is
// started with the name of a 0600 page in a 0700 folder, never with the
// token in its command line or environment (both readable by any local
// user in /proc). $BROWSER is honoured.
func TestBrowserOpenedWithoutToken(t *testing.T) {
	t.Parallel()
	dir := workspace(t)
	rec := filepath.Join(t.TempDir(), "browser-args")
	script := filepath.Join(t.TempDir(), "browser")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n{ echo \"$@\"; env; } > \""+rec+".tmp\"; mv \""+rec+".tmp\" \""+rec+"\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := gitNudge(t, dir, "dashboard")
	c.Env = append(c.Env, "BROWSER="+script+" --new-window %s")
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	_, token, ok := strings.Cut(strings.TrimSpace(line), "token=")
	if !ok || len(token) != 64 {
		t.Fatalf("first line %q; stderr %s", line, stderr.String())
	}
	var got []byte
	for range 200 { // the browser script runs on its own; wait for what it wrote
		if got, err = os.ReadFile(rec); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("the browser was not started: %v; stderr %s", err, stderr.String())
	}
	if strings.Contains(string(got), token) {
		t.Errorf("the token is in the browser's command line or environment:\n%s", got)
	}
	args, _, _ := strings.Cut(string(got), "\n")
	private := filepath.Join(dir, ".nudgethis", dashboard.PrivateDir)
	page := filepath.Join(private, dashboard.OpenFileName)
	if args != "--new-window file://"+page {
		t.Errorf("browser arguments %q, want --new-window file://%s", args, page)
	}
	for p, want := range map[string]os.FileMode{private: 0o700 | os.ModeDir, page: 0o600} {
		if fi, err := os.Lstat(p); err != nil || fi.Mode() != want {
			t.Errorf("%s: %v %v, want mode %v", p, fi.Mode(), err, want)
		}
	}
	b, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(b), "http://127.0.0.1:") || !strings.Contains(string(b), "token="+token) {
		t.Errorf("the page does not send the browser to the address: %v\n%s", err, b)
	}
}
