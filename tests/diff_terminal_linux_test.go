//go:build linux

package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestDiffTerminalEscapes: git nudge diff on a terminal prints the
// content of files the task wrote. A file holding escape sequences (an
// OSC 52 write to the user's clipboard, a screen clear, a line concealed
// with SGR 8) must reach the terminal as visible text, while git's own
// colours still pass. stdout is a pseudo-terminal here.
func TestDiffTerminalEscapes(t *testing.T) {
	dir := t.TempDir()
	env := append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, ".config"),
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com", "TERM=xterm")
	env = withoutVar(env, "NO_COLOR")
	repo := filepath.Join(dir, "repo")
	run := func(stdout *os.File, name string, args ...string) string {
		t.Helper()
		c := exec.Command(name, args...)
		c.Dir, c.Env = repo, env
		var out, errb bytes.Buffer
		c.Stdout, c.Stderr = &out, &errb
		if stdout != nil {
			c.Stdout = stdout
		}
		if err := c.Run(); err != nil {
			t.Fatalf("%s %v: %v\n%s%s", name, args, err, out.String(), errb.String())
		}
		return out.String()
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	run(nil, "git", "init", "-q")
	if err := os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(nil, "git", "add", "-A")
	run(nil, "git", "commit", "-qm", "base")
	run(nil, "git-nudge", "run", "--", "sh", "-c", `printf 'safe\n\033]52;c;Y3VybCBldmlsfHNo\007clip\n\033[8mhidden\033[0m\n\033[2Jclear\n' > a.txt`)

	master, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	mf := os.NewFile(uintptr(master), "ptmx")
	defer mf.Close()
	if err := unix.IoctlSetPointerInt(master, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(master, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	slave, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening the terminal: %v", err)
	}
	done := make(chan []byte)
	go func() {
		var all []byte
		buf := make([]byte, 4096)
		for {
			k, err := mf.Read(buf)
			all = append(all, buf[:k]...)
			if err != nil {
				break
			}
		}
		done <- all
	}()
	run(slave, "git-nudge", "diff", "t1")
	slave.Close()
	out := string(<-done)

	for _, bad := range []string{"\x1b]52", "\x1b[8m", "\x1b[2J", "\a"} {
		if strings.Contains(out, bad) {
			t.Errorf("the terminal received %q from the task's file:\n%q", bad, out)
		}
	}
	for _, want := range []string{`\033]52;c;Y3VybCBldmlsfHNo\007clip`, `\033[8mhidden`, `\033[2Jclear`} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal did not show %s:\n%q", want, out)
		}
	}
	if !strings.Contains(out, "\x1b[32m") {
		t.Errorf("git's colours are gone:\n%q", out)
	}
}

func withoutVar(env []string, name string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
