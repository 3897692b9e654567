package proc

import (
	"strings"
	"testing"
)

// TestBwrapArgv: each folder is mounted after the folders above it (a
// worktree inside the hidden state folder inside a workspace seen again
// below a hidden /tmp), the hidden folders become read-only last, the
// network is unshared unless asked, and the helper gets its limit and
// the descriptor to close.
func TestBwrapArgv(t *testing.T) {
	b := Bwrap{Path: "/usr/bin/bwrap", Hide: []string{"/tmp/ws/.nudgethis", "/tmp", "/run"},
		ReadOnly: []string{"/tmp/ws"}, Writable: []string{"/tmp/ws/.nudgethis/worktrees/t1", "/tmp/ws/.git/worktrees/t1"},
		Exe: "/x/git-nudge", ExeDest: "/run/git-nudge-sandbox/git-nudge", Dir: "/tmp/ws/.nudgethis/worktrees/t1",
		MaxProcs: 7, CloseFD: 3}
	got := strings.Join(b.Argv([]string{"sh", "-c", "true"}), " ")
	for _, want := range []string{
		"--ro-bind / / --dev /dev --proc /proc",
		"--unshare-net",
		"--tmpfs /tmp --tmpfs /run --ro-bind /tmp/ws /tmp/ws --tmpfs /tmp/ws/.nudgethis --bind /tmp/ws/.nudgethis/worktrees/t1 /tmp/ws/.nudgethis/worktrees/t1 --bind /tmp/ws/.git/worktrees/t1 /tmp/ws/.git/worktrees/t1",
		"--ro-bind /x/git-nudge /run/git-nudge-sandbox/git-nudge --remount-ro /tmp/ws/.nudgethis --remount-ro /tmp --remount-ro /run",
		"--chdir /tmp/ws/.nudgethis/worktrees/t1 -- /run/git-nudge-sandbox/git-nudge " + SandboxArg + " -engine bwrap -nproc 7 -close 3 -- sh -c true",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("bwrap argv lacks %q:\n%s", want, got)
		}
	}
	b.Network = true
	if got := strings.Join(b.Argv([]string{"true"}), " "); strings.Contains(got, "--unshare-net") {
		t.Errorf("nudge.sandbox.network=host still unshares the network: %s", got)
	}
	if code := SandboxMain([]string{"-engine", "chroot", "--", "true"}); code != 126 {
		t.Errorf("unknown engine: exit %d, want 126", code)
	}
}
