package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A config file that includes another (common for a work identity) does
// not by itself send the in-process readers and writers to git; an
// included core.fsync or core.sharedRepository does.
func TestFastPathFollowsIncludes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, included string
		fast           bool
	}{
		{"identity only", "[user]\n\tname = Work Name\n", true},
		{"fsync", "[core]\n\tfsync = all\n", false},
		{"shared", "[core]\n\tsharedRepository = group\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newApplyRepo(t)
			inc := filepath.Join(t.TempDir(), "included.cfg")
			if err := os.WriteFile(inc, []byte(c.included), 0o644); err != nil {
				t.Fatal(err)
			}
			gitT(t, r.WorkTree, "config", "include.path", inc)
			if got := r.InProcess(); got != c.fast {
				t.Errorf("fastOK with an included %q = %v, want %v", c.included, got, c.fast)
			}
		})
	}
}

// A ref with a reflog is updated by git, which appends to the reflog.
func TestSetRefFastLeavesReflogsAndLinksToGit(t *testing.T) {
	t.Parallel()
	r := newApplyRepo(t)
	ctx := context.Background()
	c := gitT(t, r.WorkTree, "commit-tree", "-m", "x", r.EmptyTree())
	gitT(t, r.WorkTree, "update-ref", "--create-reflog", "refs/nudgethis-oplog/main", c)
	c2 := gitT(t, r.WorkTree, "commit-tree", "-p", c, "-m", "y", r.EmptyTree())
	if err := r.SetRefFast(ctx, "refs/nudgethis-oplog/main", c2, c); err != nil {
		t.Fatal(err)
	}
	if log := gitT(t, r.WorkTree, "reflog", "show", "--format=%H", "refs/nudgethis-oplog/main"); !strings.HasPrefix(log, c2) {
		t.Errorf("the reflog was not appended to:\n%s", log)
	}

}

// core.logAllRefUpdates=true (what git init writes) starts reflogs only for
// branches, remote-tracking refs and notes: the suite's own refs stay in
// this process. "always" starts one for every ref, so git writes them all,
// and a new ref gets its reflog as git update-ref would give it.
func TestRefNeedsGitFollowsLogAllRefUpdates(t *testing.T) {
	t.Parallel()
	r := newApplyRepo(t)
	gitT(t, r.WorkTree, "config", "core.logAllRefUpdates", "true")
	for name, want := range map[string]bool{
		"refs/nudgethis-oplog/main":   false,
		"refs/nudgethis/snapshots/t1": false,
		"refs/heads/feature":          true,
		"refs/remotes/origin/main":    true,
		"refs/notes/commits":          true,
	} {
		if got := r.RefNeedsGit(name); got != want {
			t.Errorf("logAllRefUpdates=true: RefNeedsGit(%s) = %v, want %v", name, got, want)
		}
	}
	gitT(t, r.WorkTree, "config", "core.logAllRefUpdates", "always")
	if !r.RefNeedsGit("refs/nudgethis-oplog/main") {
		t.Error("logAllRefUpdates=always: the op log's ref would be updated without its reflog")
	}
	ctx := context.Background()
	c := gitT(t, r.WorkTree, "commit-tree", "-m", "x", r.EmptyTree())
	if err := r.SetRefFast(ctx, "refs/nudgethis/snapshots/t1", c, r.ZeroID()); err != nil {
		t.Fatal(err)
	}
	if log := gitT(t, r.WorkTree, "reflog", "show", "--format=%H", "refs/nudgethis/snapshots/t1"); !strings.HasPrefix(log, c) {
		t.Errorf("logAllRefUpdates=always: no reflog for a new ref:\n%s", log)
	}
}

// ConfigLast, where it answers, answers what git config --type=bool-or-str
// --get does, for the spellings a config file allows; where it cannot be
// sure it says so, and git is asked.
func TestConfigLastAgreesWithGit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, text string
		here       bool // ConfigLast answers without git
	}{
		{"unset", "[user]\n\tname = x\n", true},
		{"path", "[core]\n\tfsmonitor = /opt/hooks/fsmon\n", true},
		{"quoted with spaces", "[core]\n\tfsmonitor = \"/opt/my hooks/fsmon\" ; comment\n", true},
		{"escaped quote", "[core]\n\tfsmonitor = \"/opt/a\\\"b\"\n", true},
		{"key case", "[CORE]\n\tFsMonitor = /x\n", true},
		{"last wins", "[core]\n\tfsmonitor = /a\n[user]\n\tname = y\n[core]\n\tfsmonitor = /b\n", true},
		{"yes", "[core]\n\tfsmonitor = yes\n", true},
		{"off", "[core]\n\tfsmonitor = Off\n", true},
		{"number", "[core]\n\tfsmonitor = 0\n", true},
		{"number true", "[core]\n\tfsmonitor = 2\n", true},
		{"subsection ignored", "[core \"x\"]\n\tfsmonitor = /sub\n", true},
		{"bare key", "[core]\n\tfsmonitor\n", false},
		{"empty", "[core]\n\tfsmonitor =\n", false},
		{"unit suffix", "[core]\n\tfsmonitor = 1k\n", false},
		{"include", "[include]\n\tpath = /nonexistent\n[core]\n\tfsmonitor = /x\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newApplyRepo(t)
			cfg := filepath.Join(r.CommonDir, "config")
			old, err := os.ReadFile(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(cfg, append(old, c.text...), 0o644); err != nil {
				t.Fatal(err)
			}
			val, found, here := r.ConfigLast("core", "fsmonitor")
			if here != c.here {
				t.Fatalf("ConfigLast answered here = %v, want %v (value %q)", here, c.here, val)
			}
			if !here {
				return
			}
			cmd := exec.Command("git", "config", "--type=bool-or-str", "--get", "core.fsmonitor")
			cmd.Dir = r.WorkTree
			out, err := cmd.Output()
			gitFound := err == nil
			if gitFound != found || strings.TrimSuffix(string(out), "\n") != val {
				t.Errorf("ConfigLast = %q (found %v); git config = %q (err %v)", val, found, out, err)
			}
		})
	}
}

// A ref whose leading folder is a packed ref, or that has packed refs
// under it, is left to git, which refuses it; it is never written beside
// them.
func TestSetRefFastLeavesPackedClashesToGit(t *testing.T) {
	t.Parallel()
	r := newApplyRepo(t)
	ctx := context.Background()
	c := gitT(t, r.WorkTree, "commit-tree", "-m", "x", r.EmptyTree())
	gitT(t, r.WorkTree, "update-ref", "refs/nudgethis/x", c)
	gitT(t, r.WorkTree, "update-ref", "refs/nudgethis/y/z", c)
	gitT(t, r.WorkTree, "pack-refs", "--all")
	for _, name := range []string{"refs/nudgethis/x/y", "refs/nudgethis/y"} {
		if err := r.SetRefFast(ctx, name, c, r.ZeroID()); err == nil {
			t.Errorf("SetRefFast(%s) beside a packed ref succeeded", name)
		}
	}
	if refs := gitT(t, r.WorkTree, "for-each-ref", "--format=%(refname)", "refs/nudgethis/"); refs != "refs/nudgethis/x\nrefs/nudgethis/y/z" {
		t.Errorf("refs now:\n%s", refs)
	}
}

// A value continued on the next line is left to git (the decoder keeps
// the newline git drops).
func TestConfigLastLeavesContinuationsToGit(t *testing.T) {
	t.Parallel()
	r := newApplyRepo(t)
	cfg := filepath.Join(r.CommonDir, "config")
	old, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append(old, "[core]\n\tfsmonitor = /opt/a\\\nb\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, _, here := r.ConfigLast("core", "fsmonitor"); here {
		t.Errorf("ConfigLast read a continued value here: %q", v)
	}
}
