package git_test

import (
	"context"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

func TestCommitTreeAndQueries(t *testing.T) {
	t.Parallel()
	dir := testutil.Repo(t)
	c1 := testutil.Commit(t, dir, map[string]string{"f": "1\n"}, "one")
	ctx := context.Background()
	r := discover(t, dir)
	// Signing configured and log.showSignature on: neither may leak in.
	testutil.Git(t, dir, "config", "commit.gpgSign", "true")
	testutil.Git(t, dir, "config", "gpg.program", "false")
	testutil.Git(t, dir, "config", "log.showSignature", "true")

	tree, err := r.TreeOf(ctx, c1)
	if err != nil || tree != testutil.Git(t, dir, "rev-parse", c1+"^{tree}") {
		t.Fatalf("TreeOf = %s, %v", tree, err)
	}
	msg := "subject line\n\nbody with -dash and unicode é\n"
	c2, err := r.CommitTree(ctx, git.CommitRequest{
		Tree: tree, Parents: []string{c1}, Message: msg,
		Author:    git.Identity{Name: "Agent Smith", Email: "agent@example.com"},
		Committer: git.Identity{Name: "Nudge Bot", Email: "bot@example.com"},
	})
	if err != nil {
		t.Fatal(err)
	}
	raw := testutil.Git(t, dir, "cat-file", "commit", c2)
	for _, want := range []string{"tree " + tree, "parent " + c1, "author Agent Smith <agent@example.com>", "committer Nudge Bot <bot@example.com>", msg} {
		if !strings.Contains(raw+"\n", want) {
			t.Errorf("commit object lacks %q:\n%s", want, raw)
		}
	}
	if strings.Contains(raw, "gpgsig") {
		t.Error("the commit was signed")
	}
	if got, err := r.CommitMessage(ctx, c2); err != nil || got != strings.TrimRight(msg, "\n") {
		t.Errorf("CommitMessage = %q, %v", got, err)
	}
	if ok, err := r.IsAncestor(ctx, c1, c2); err != nil || !ok {
		t.Errorf("IsAncestor(c1, c2) = %v, %v", ok, err)
	}
	if ok, err := r.IsAncestor(ctx, c2, c1); err != nil || ok {
		t.Errorf("IsAncestor(c2, c1) = %v, %v", ok, err)
	}
	if ok, err := r.HasObject(ctx, c2); err != nil || !ok {
		t.Errorf("HasObject(c2) = %v, %v", ok, err)
	}
	if ok, err := r.HasObject(ctx, strings.Repeat("1", 40)); err != nil || ok {
		t.Errorf("HasObject(missing) = %v, %v", ok, err)
	}
	for _, rev := range []string{"--all", "-h", "no-such-branch", tree} {
		if id, ok, err := r.ResolveCommit(ctx, rev); ok || err != nil {
			t.Errorf("ResolveCommit(%q) = %q, %v, %v; want not found", rev, id, ok, err)
		}
	}
	if id, ok, err := r.ResolveCommit(ctx, "main~0"); err != nil || !ok || id != c1 {
		t.Errorf("ResolveCommit(main~0) = %q, %v, %v", id, ok, err)
	}
}

func TestConfig(t *testing.T) {
	t.Parallel()
	dir := testutil.Repo(t)
	ctx := context.Background()
	r := discover(t, dir)
	testutil.Git(t, dir, "config", "nudge.flag", "yes")
	testutil.Git(t, dir, "config", "nudge.size", "2k")
	testutil.Git(t, dir, "config", "--add", "nudge.multi", "a b")
	testutil.Git(t, dir, "config", "--add", "nudge.multi", "c\nd")
	testutil.Git(t, dir, "config", "nudge.bad", "maybe")

	if v, ok, err := r.ConfigGet(ctx, "nudge.size"); err != nil || !ok || v != "2k" {
		t.Errorf("ConfigGet(nudge.size) = %q, %v, %v", v, ok, err)
	}
	if _, ok, err := r.ConfigGet(ctx, "nudge.unset"); err != nil || ok {
		t.Errorf("ConfigGet(unset) ok=%v err=%v", ok, err)
	}
	if v, err := r.ConfigBool(ctx, "nudge.flag", false); err != nil || !v {
		t.Errorf("ConfigBool(yes) = %v, %v", v, err)
	}
	if v, err := r.ConfigBool(ctx, "nudge.unset", true); err != nil || !v {
		t.Errorf("ConfigBool(unset, default true) = %v, %v", v, err)
	}
	if _, err := r.ConfigBool(ctx, "nudge.bad", false); err == nil {
		t.Error("ConfigBool of a non-boolean value succeeded")
	}
	if v, err := r.ConfigInt(ctx, "nudge.size", 0); err != nil || v != 2048 {
		t.Errorf("ConfigInt(2k) = %d, %v", v, err)
	}
	if v, err := r.ConfigInt(ctx, "nudge.unset", 7); err != nil || v != 7 {
		t.Errorf("ConfigInt(unset) = %d, %v", v, err)
	}
	if v, err := r.ConfigGetAll(ctx, "nudge.multi"); err != nil || len(v) != 2 || v[0] != "a b" || v[1] != "c\nd" {
		t.Errorf("ConfigGetAll = %q, %v", v, err)
	}
	if v, err := r.ConfigGetAll(ctx, "nudge.none"); err != nil || v != nil {
		t.Errorf("ConfigGetAll(unset) = %q, %v", v, err)
	}
}

func TestAbsentMode(t *testing.T) {
	t.Parallel()
	for _, m := range []string{"000000", "0", ""} {
		if !git.AbsentMode(m) {
			t.Errorf("AbsentMode(%q) = false", m)
		}
	}
	for _, m := range []string{git.ModeFile, git.ModeExec, git.ModeSymlink, git.ModeGitlink, git.ModeTree, "040000"} {
		if git.AbsentMode(m) {
			t.Errorf("AbsentMode(%q) = true", m)
		}
	}
}
