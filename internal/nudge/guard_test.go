package nudge

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/guard"
	"github.com/nudgethis/git-nudge/internal/journal"
)

// snapshotGitDir returns every entry under the watched parts of .git with
// its kind, mode and bytes.
func snapshotGitDir(t *testing.T, gitDir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, root := range []string{"config", "hooks", "info"} {
		_ = filepath.Walk(filepath.Join(gitDir, root), func(p string, st os.FileInfo, err error) error {
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(gitDir, p)
			switch {
			case st.Mode()&os.ModeSymlink != 0:
				target, _ := os.Readlink(p)
				out[rel] = "link:" + target
			case st.IsDir():
				out[rel] = "dir"
			default:
				b, _ := os.ReadFile(p)
				out[rel] = st.Mode().Perm().String() + ":" + string(b)
			}
			return nil
		})
	}
	return out
}

// TestGuardPutsBackEveryShape: whatever a running task makes of the
// watched files (a folder swapped for a symlink, a file for a folder, the
// config for a symlink, a mode change, a hook in a new subfolder), the
// check puts back exactly the trusted bytes and modes, keeps what it found,
// and writes nothing outside the git folder.
func TestGuardPutsBackEveryShape(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.write("a.txt", "a\n", 0o644)
	r.commitAll("base")
	gitDir := filepath.Join(r.dir, ".git")
	if err := os.WriteFile(filepath.Join(gitDir, "hooks", "pre-push"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ws := r.workspace()
	ctx := context.Background()
	var out bytes.Buffer
	ws.GuardCheck(ctx, nil, checkSnapshot, &out) // trust the state now
	if out.Len() != 0 {
		t.Fatalf("first check said %q", out.String())
	}
	before := snapshotGitDir(t, gitDir)

	outside := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// hooks/ becomes a symlink to a folder outside holding a hook.
	must(os.WriteFile(filepath.Join(outside, "pre-commit"), []byte("#!/bin/sh\necho pwned\n"), 0o755))
	must(os.Rename(filepath.Join(gitDir, "hooks"), filepath.Join(outside, "old-hooks")))
	must(os.Symlink(outside, filepath.Join(gitDir, "hooks")))
	// info/exclude becomes a folder.
	must(os.Remove(filepath.Join(gitDir, "info", "exclude")))
	must(os.MkdirAll(filepath.Join(gitDir, "info", "exclude"), 0o755))
	must(os.WriteFile(filepath.Join(gitDir, "info", "exclude", "x"), []byte("x"), 0o644))
	// info/attributes appears.
	must(os.WriteFile(filepath.Join(gitDir, "info", "attributes"), []byte("* filter=evil\n"), 0o644))
	// config becomes a symlink to a config outside.
	must(os.WriteFile(filepath.Join(outside, "config"), []byte("[core]\n\tfsmonitor = evil\n"), 0o644))
	must(os.Rename(filepath.Join(gitDir, "config"), filepath.Join(outside, "old-config")))
	must(os.Symlink(filepath.Join(outside, "config"), filepath.Join(gitDir, "config")))

	task := &Task{ID: "t1", State: StateRunning, Worktree: StrPtr(filepath.Join(r.dir, "wt"))}
	out.Reset()
	ws.GuardCheck(ctx, task, CheckOwn, &out)
	msg := out.String()
	for _, want := range []string{"WARNING", ".git/hooks was added (a symlink to", ".git/info/exclude/x was added", ".git/info/attributes was added", ".git/config was changed (a symlink", "put them back"} {
		if !strings.Contains(msg, want) {
			t.Errorf("report lacks %q:\n%s", want, msg)
		}
	}
	if after := snapshotGitDir(t, gitDir); !equalMaps(before, after) {
		t.Errorf("not put back:\nbefore %v\nafter  %v", before, after)
	}
	// What the task left outside is untouched; what it made is kept.
	if b, err := os.ReadFile(filepath.Join(outside, "config")); err != nil || !strings.Contains(string(b), "evil") {
		t.Errorf("the file outside changed: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(ws.Dir, "quarantine", "1", "info", "attributes")); err != nil {
		t.Errorf("the task's info/attributes was not kept: %v", err)
	}
	if len(task.ConfigChanges) == 0 || task.GuardPending {
		t.Errorf("record: changes %q, pending %v", task.ConfigChanges, task.GuardPending)
	}

	// A hook whose mode changed, and a hook in a new subfolder.
	must(os.Chmod(filepath.Join(gitDir, "hooks", "pre-push"), 0o644))
	must(os.MkdirAll(filepath.Join(gitDir, "hooks", "sub"), 0o755))
	must(os.WriteFile(filepath.Join(gitDir, "hooks", "sub", "x"), []byte("x"), 0o755))
	out.Reset()
	ws.GuardCheck(ctx, task, CheckOwn, &out)
	if !strings.Contains(out.String(), ".git/hooks/pre-push was changed") || !strings.Contains(out.String(), ".git/hooks/sub/x was added") {
		t.Errorf("report:\n%s", out.String())
	}
	if after := snapshotGitDir(t, gitDir); !equalMaps(before, after) {
		t.Errorf("not put back:\nbefore %v\nafter  %v", before, after)
	}

	// Nothing changed: nothing said.
	out.Reset()
	ws.GuardCheck(ctx, task, CheckOwn, &out)
	if out.Len() != 0 {
		t.Errorf("a check with nothing changed said %q", out.String())
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestGuardTaskWorktreeConfig: a config.worktree in the task worktree's
// own git admin folder (which would apply to the git commands capture runs
// there) is reported, kept aside and removed.
func TestGuardTaskWorktreeConfig(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.write("a.txt", "a\n", 0o644)
	base := r.commitAll("base")
	ws := r.workspace()
	ctx := context.Background()
	ws.GuardCheck(ctx, nil, checkSnapshot, nil)
	wt := filepath.Join(ws.Dir, "worktrees", "t1")
	if err := ws.Repo.AddWorktree(ctx, wt, base); err != nil {
		t.Fatal(err)
	}
	admin := strings.TrimSpace(r.gitIn(nil, nil, "-C", wt, "rev-parse", "--path-format=absolute", "--git-dir"))
	cfg := filepath.Join(admin, "config.worktree")
	if err := os.WriteFile(cfg, []byte("[filter \"x\"]\n\tclean = evil\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	task := &Task{ID: "t1", State: StateRunning, Worktree: &wt}
	var out bytes.Buffer
	ws.GuardCheck(ctx, task, CheckOwn, &out)
	if !strings.Contains(out.String(), `config.worktree: filter.x.clean = "evil" was added`) {
		t.Errorf("report:\n%s", out.String())
	}
	if _, err := os.Lstat(cfg); !os.IsNotExist(err) {
		t.Errorf("config.worktree is still there: %v", err)
	}
	if len(task.ConfigChanges) == 0 {
		t.Error("not recorded")
	}
}

// TestGuardUpgradeKeepsUserInfo: a trusted state of version 1 (which
// watched only info/exclude and info/attributes) meets an
// info/sparse-checkout and a shallow file the user had before the
// upgrade: they are taken as the user's, not put back, and guard.json is
// rewritten as version 2; from then on a task adding info/grafts is put
// back.
func TestGuardUpgradeKeepsUserInfo(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.write("a.txt", "a\n", 0o644)
	r.commitAll("base")
	gitDir := filepath.Join(r.dir, ".git")
	ws := r.workspace()
	ctx := context.Background()
	var out bytes.Buffer
	ws.GuardCheck(ctx, nil, checkSnapshot, &out)
	// Make the trusted state look as version 1 wrote it.
	var st guard.State
	if err := journal.Read(ws.Guard().Path(), &st); err != nil {
		t.Fatal(err)
	}
	st.Version = 1
	if err := journal.Write(ws.Guard().Path(), st); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(gitDir, "info", "sparse-checkout"), []byte("/*\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	task := &Task{ID: "t1", State: StateRunning, Worktree: StrPtr(filepath.Join(r.dir, "wt"))}
	out.Reset()
	ws.GuardCheck(ctx, task, CheckOwn, &out)
	if out.Len() != 0 || len(task.ConfigChanges) != 0 {
		t.Fatalf("the upgrade check reported %q (%q)", out.String(), task.ConfigChanges)
	}
	if _, err := os.Stat(filepath.Join(gitDir, "info", "sparse-checkout")); err != nil {
		t.Fatalf("the user's info/sparse-checkout was removed: %v", err)
	}
	if err := journal.Read(ws.Guard().Path(), &st); err != nil || st.Version != guard.Version {
		t.Fatalf("guard.json not rewritten as version %d: %d %v", guard.Version, st.Version, err)
	}
	if err := os.WriteFile(filepath.Join(gitDir, "info", "grafts"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws.GuardCheck(ctx, task, CheckOwn, &out)
	if !strings.Contains(out.String(), ".git/info/grafts was added") {
		t.Errorf("report:\n%s", out.String())
	}
	if _, err := os.Stat(filepath.Join(gitDir, "info", "grafts")); err == nil {
		t.Error("info/grafts was not put back")
	}
}
