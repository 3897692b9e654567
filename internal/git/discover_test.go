package git_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

func discover(t *testing.T, dir string) *git.Repo {
	t.Helper()
	r, err := git.Discover(context.Background(), dir)
	if err != nil {
		t.Fatalf("Discover(%s): %v", dir, err)
	}
	return r
}

func wantRepo(t *testing.T, r *git.Repo, gitDir, commonDir, workTree, format string) {
	t.Helper()
	if r.GitDir != gitDir || r.CommonDir != commonDir || r.WorkTree != workTree || r.ObjectFormat != format {
		t.Errorf("got Repo{GitDir:%q CommonDir:%q WorkTree:%q ObjectFormat:%q}\nwant Repo{GitDir:%q CommonDir:%q WorkTree:%q ObjectFormat:%q}",
			r.GitDir, r.CommonDir, r.WorkTree, r.ObjectFormat, gitDir, commonDir, workTree, format)
	}
}

func TestDiscoverFromSubdirectory(t *testing.T) {
	t.Parallel()
	dir := testutil.Repo(t)
	sub := filepath.Join(dir, "a", "b c")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	r := discover(t, sub)
	wantRepo(t, r, filepath.Join(dir, ".git"), filepath.Join(dir, ".git"), dir, "sha1")
}

func TestDiscoverLinkedWorktree(t *testing.T) {
	t.Parallel()
	dir := testutil.Repo(t)
	testutil.Commit(t, dir, map[string]string{"f": "1\n"}, "one")
	linked := filepath.Join(testutil.RealTempDir(t), "linked")
	testutil.Git(t, dir, "worktree", "add", "-q", "-b", "side", linked)
	if err := os.MkdirAll(filepath.Join(linked, "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := discover(t, filepath.Join(linked, "deep"))
	wantRepo(t, r, filepath.Join(dir, ".git", "worktrees", "linked"), filepath.Join(dir, ".git"), linked, "sha1")
	h, err := r.Head(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if h.Branch != "refs/heads/side" {
		t.Errorf("linked worktree HEAD branch = %q, want refs/heads/side", h.Branch)
	}
}

// EmptyTree and ZeroID must match what git computes in each object format.
func TestObjectFormats(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			dir := testutil.Repo(t, "--object-format="+format)
			r := discover(t, dir)
			if r.ObjectFormat != format {
				t.Fatalf("ObjectFormat = %q, want %q", r.ObjectFormat, format)
			}
			hexLen := map[string]int{"sha1": 40, "sha256": 64}[format]
			if len(r.ZeroID()) != hexLen || strings.Trim(r.ZeroID(), "0") != "" {
				t.Errorf("ZeroID() = %q, want %d zeros", r.ZeroID(), hexLen)
			}
			want := testutil.Git(t, dir, "hash-object", "-t", "tree", os.DevNull)
			if r.EmptyTree() != want {
				t.Errorf("EmptyTree() = %s, git hash-object says %s", r.EmptyTree(), want)
			}
			// The plumbing round-trips ids of this length: an empty index
			// writes the empty tree, and a commit of it can be resolved.
			ctx := context.Background()
			tree, err := r.WriteTree(ctx, git.Index{Path: filepath.Join(t.TempDir(), "index")})
			if err != nil {
				t.Fatal(err)
			}
			if tree != r.EmptyTree() {
				t.Errorf("WriteTree of an empty index = %s, want %s", tree, r.EmptyTree())
			}
			c, err := r.CommitTree(ctx, git.CommitRequest{Tree: tree, Message: "empty\n"})
			if err != nil {
				t.Fatal(err)
			}
			got, ok, err := r.ResolveCommit(ctx, c)
			if err != nil || !ok || got != c || len(c) != hexLen {
				t.Errorf("ResolveCommit(%s) = %q, %v, %v", c, got, ok, err)
			}
		})
	}
}

func TestHeadUnbornBranch(t *testing.T) {
	t.Parallel()
	dir := testutil.Repo(t)
	h, err := discover(t, dir).Head(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !h.Unborn() || h.Detached() || h.Branch != "refs/heads/main" || h.ShortBranch() != "main" {
		t.Errorf("Head() = %+v (unborn %v, detached %v), want unborn main", h, h.Unborn(), h.Detached())
	}
}

func TestHeadDetached(t *testing.T) {
	t.Parallel()
	dir := testutil.Repo(t)
	c1 := testutil.Commit(t, dir, map[string]string{"f": "1\n"}, "one")
	testutil.Commit(t, dir, map[string]string{"f": "2\n"}, "two")
	testutil.Git(t, dir, "checkout", "-q", "--detach", c1)
	h, err := discover(t, dir).Head(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !h.Detached() || h.Unborn() || h.Commit != c1 {
		t.Errorf("Head() = %+v, want detached at %s", h, c1)
	}
}

// GIT_DIR and GIT_WORK_TREE chosen by the user (git --git-dir, scripts) win
// over the current folder, as they do for git.
func TestDiscoverHonoursGitDirAndWorkTree(t *testing.T) {
	dir := testutil.Repo(t)
	c := testutil.Commit(t, dir, map[string]string{"f": "1\n"}, "one")
	elsewhere := testutil.Repo(t) // a different repository as the cwd
	t.Setenv("GIT_DIR", filepath.Join(dir, ".git"))
	t.Setenv("GIT_WORK_TREE", dir)
	r := discover(t, elsewhere)
	wantRepo(t, r, filepath.Join(dir, ".git"), filepath.Join(dir, ".git"), dir, "sha1")
	h, err := r.Head(context.Background())
	if err != nil || h.Commit != c {
		t.Errorf("Head() = %+v, %v; want commit %s of the GIT_DIR repository", h, err, c)
	}
}

func TestDiscoverBare(t *testing.T) {
	t.Parallel()
	bare := testutil.Repo(t, "--bare")
	if _, err := git.Discover(context.Background(), bare); !errors.Is(err, git.ErrBare) {
		t.Errorf("Discover(bare) = %v, want ErrBare", err)
	}
	dir := testutil.Repo(t)
	for _, in := range []string{".git", ".git/refs"} {
		if _, err := git.Discover(context.Background(), filepath.Join(dir, in)); !errors.Is(err, git.ErrBare) {
			t.Errorf("Discover(%s) = %v, want ErrBare", in, err)
		}
	}
}

func TestDiscoverOutsideRepository(t *testing.T) {
	top := testutil.RealTempDir(t)
	// A repository above the temp folder (some machines keep /tmp in one)
	// must not be found.
	t.Setenv("GIT_CEILING_DIRECTORIES", top)
	dir := filepath.Join(top, "plain", "sub")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := git.Discover(context.Background(), dir)
	if !errors.Is(err, git.ErrNotRepository) {
		t.Errorf("Discover(outside) = %v, want ErrNotRepository", err)
	}
}

// A translated git must not defeat the recognition of git's conditions:
// users with LANGUAGE=de get German messages from git itself.
func TestDiscoverUnderTranslatedGit(t *testing.T) {
	top := testutil.RealTempDir(t)
	t.Setenv("GIT_CEILING_DIRECTORIES", top)
	t.Setenv("LANGUAGE", "de")
	t.Setenv("LC_ALL", "C.UTF-8")
	_, err := testutil.TryGit(top, "rev-parse", "--git-dir")
	if err == nil || strings.Contains(err.Error(), "not a git repository") {
		t.Skip("this git prints English messages under LANGUAGE=de (no translations installed)")
	}
	if _, err := git.Discover(context.Background(), top); !errors.Is(err, git.ErrNotRepository) {
		t.Errorf("Discover(outside) under LANGUAGE=de = %v, want ErrNotRepository", err)
	}
	bare := testutil.Repo(t, "--bare")
	if _, err := git.Discover(context.Background(), bare); !errors.Is(err, git.ErrBare) {
		t.Errorf("Discover(bare) under LANGUAGE=de = %v, want ErrBare", err)
	}
	dir := testutil.Repo(t)
	testutil.Commit(t, dir, nil, "one")
	r := discover(t, dir)
	ctx := context.Background()
	h, _ := r.Head(ctx)
	err = r.SetRef(ctx, git.SetRefRequest{Name: "refs/heads/main", New: h.Commit, Old: r.ZeroID()})
	if !errors.Is(err, git.ErrRefConflict) {
		t.Errorf("create-only SetRef of an existing ref under LANGUAGE=de = %v, want ErrRefConflict", err)
	}
}

// TestHeadOneWay: Head and HeadTree agree on a branch, detached and
// unborn, and ObjectSizes (ObjectInfos as a map) leaves missing objects
// out and refuses malformed ids instead of dropping them.
func TestHeadOneWay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := testutil.Repo(t)
	r := discover(t, dir)
	check := func(state string) {
		t.Helper()
		h, err := r.Head(ctx)
		ht, tree, err2 := r.HeadTree(ctx)
		if err != nil || err2 != nil || h != ht {
			t.Fatalf("%s: Head = %+v, %v; HeadTree = %+v, %v", state, h, err, ht, err2)
		}
		if h.Unborn() {
			if tree != "" {
				t.Errorf("%s: tree %q, want none", state, tree)
			}
			return
		}
		if want := strings.TrimSpace(testutil.Git(t, dir, "rev-parse", "HEAD^{tree}")); tree != want {
			t.Errorf("%s: tree %q, want %q", state, tree, want)
		}
	}
	check("unborn")
	c1 := testutil.Commit(t, dir, map[string]string{"f": "1\n"}, "one")
	check("branch")
	testutil.Git(t, dir, "checkout", "-q", "--detach", c1)
	check("detached")

	blob := strings.TrimSpace(testutil.Git(t, dir, "rev-parse", c1+":f"))
	sizes, err := r.ObjectSizes(ctx, []string{blob, r.ZeroID()})
	if err != nil || len(sizes) != 1 || sizes[blob] != 2 {
		t.Errorf("ObjectSizes = %v, %v; want only %s of 2 bytes", sizes, err, blob)
	}
	if _, err := r.ObjectSizes(ctx, []string{"not-an-id"}); err == nil {
		t.Error("ObjectSizes of a malformed id: no error")
	}
}
