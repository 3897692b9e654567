package git_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// installFailingHooks puts hooks that leave a marker file and fail into
// both .git/hooks and a configured core.hooksPath, and returns the marker.
func installFailingHooks(t *testing.T, dir string) string {
	t.Helper()
	marker := filepath.Join(t.TempDir(), "hook-ran")
	script := "#!/bin/sh\necho \"$0\" >>'" + marker + "'\nexit 1\n"
	custom := filepath.Join(dir, "myhooks")
	for _, hooks := range []string{filepath.Join(dir, ".git", "hooks"), custom} {
		if err := os.MkdirAll(hooks, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"reference-transaction", "pre-commit", "commit-msg", "post-commit", "post-index-change", "pre-auto-gc"} {
			if err := os.WriteFile(filepath.Join(hooks, name), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	return marker
}

func TestNoHooksRun(t *testing.T) {
	t.Parallel()
	dir := testutil.Repo(t)
	base := testutil.Commit(t, dir, map[string]string{"f": "1\n"}, "one")
	marker := installFailingHooks(t, dir)
	ctx := context.Background()
	r := discover(t, dir)

	for _, hooksPath := range []string{"", filepath.Join(dir, "myhooks")} {
		if hooksPath != "" {
			testutil.Git(t, dir, "config", "core.hooksPath", hooksPath)
		}
		testutil.WriteFile(t, dir, "g", "2\n")
		if err := r.AddAll(ctx, git.Index{}, "myhooks"); err != nil {
			t.Fatal(err)
		}
		tree, err := r.WriteTree(ctx, git.Index{})
		if err != nil {
			t.Fatal(err)
		}
		c, err := r.CommitTree(ctx, git.CommitRequest{Tree: tree, Parents: []string{base}, Message: "two\n"})
		if err != nil {
			t.Fatalf("CommitTree with failing hooks installed: %v", err)
		}
		name := "refs/test/" + filepath.Base(hooksPath+"x")
		if err := r.SetRef(ctx, git.SetRefRequest{Name: name, New: c, Old: r.ZeroID(), Reason: "test"}); err != nil {
			t.Fatalf("SetRef with a failing reference-transaction hook installed: %v", err)
		}
		if err := r.SetRef(ctx, git.SetRefRequest{Name: "refs/heads/main", New: c, Old: base}); err != nil {
			t.Fatalf("SetRef of the branch: %v", err)
		}
		if err := r.ReadTree(ctx, git.Index{}, base); err != nil {
			t.Fatal(err)
		}
		if err := r.DeleteRef(ctx, name, c); err != nil {
			t.Fatalf("DeleteRef with a failing reference-transaction hook installed: %v", err)
		}
		if err := r.SetRef(ctx, git.SetRefRequest{Name: "refs/heads/main", New: base, Old: c}); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(marker); err == nil {
			t.Fatalf("hooks ran (core.hooksPath %q): %s", hooksPath, b)
		}
	}

	// The hooks are live: git itself runs them, so the absence above means
	// something.
	if _, err := testutil.TryGit(dir, "update-ref", "refs/test/direct", base); err == nil {
		t.Error("git update-ref succeeded although the reference-transaction hook fails")
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the installed hook did not run under plain git either: %v", err)
	}
}

// `git -c core.hooksPath=DIR nudge ...` hands the setting down in
// GIT_CONFIG_PARAMETERS, which children keep (other -c settings must reach
// them); the layer's own -c comes later and wins.
func TestNoHooksRunUnderGitDashC(t *testing.T) {
	dir := testutil.Repo(t)
	base := testutil.Commit(t, dir, map[string]string{"f": "1\n"}, "one")
	marker := installFailingHooks(t, dir)
	t.Setenv("GIT_CONFIG_PARAMETERS", "'core.hookspath'='"+filepath.Join(dir, "myhooks")+"'")
	ctx := context.Background()
	r := discover(t, dir)
	if err := r.SetRef(ctx, git.SetRefRequest{Name: "refs/test/dash-c", New: base, Old: r.ZeroID()}); err != nil {
		t.Fatalf("SetRef under git -c core.hooksPath: %v", err)
	}
	if err := r.AddAll(ctx, git.Index{}, "myhooks"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("hooks ran: %s", b)
	}
}
