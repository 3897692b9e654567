package pool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/refusal"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// newPool makes a repository with one commit and the pool of its
// workspace; it returns the pool and the commit.
func newPool(t *testing.T) (*Pool, string) {
	t.Helper()
	dir := testutil.Repo(t)
	commit := testutil.Commit(t, dir, map[string]string{"a.txt": "a\n", "src/b.txt": "b\n"}, "one")
	state := filepath.Join(dir, refs.NudgeDir)
	testutil.WriteFile(t, state, ".gitignore", "*\n")
	r, err := git.Discover(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	lock := func(ctx context.Context, what string) (*journal.Lock, error) {
		return journal.Acquire(ctx, filepath.Join(state, "lock"), time.Second, what)
	}
	return &Pool{Repo: r, Dir: state, Wait: time.Second, Lock: lock}, commit
}

func noPaths() ([]string, error) { return nil, nil }

// A worktree a task left scribbled on is parked, and the next task that
// claims it gets exactly its own snapshot: the changed file written back,
// the untracked file and the link gone, the link's target untouched.
func TestParkedWorktreeComesBackFresh(t *testing.T) {
	ctx := context.Background()
	p, commit := newPool(t)
	dir1 := filepath.Join(p.Dir, "worktrees", "t1")
	if err := p.Claim(ctx, "t1", dir1).Checkout(ctx, commit, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p.TrustedIndex("t1")); err != nil {
		t.Fatalf("no trusted index after a fresh checkout: %v", err)
	}
	outside := t.TempDir()
	testutil.WriteFile(t, outside, "keep.txt", "mine\n")
	testutil.WriteFile(t, dir1, "a.txt", "changed by the task\n")
	testutil.WriteFile(t, dir1, "src/new.txt", "untracked\n")
	if err := os.Symlink(outside, filepath.Join(dir1, "src", "link")); err != nil {
		t.Fatal(err)
	}
	if !p.Park(ctx, "t1", dir1, noPaths) {
		t.Fatal("Park refused a worktree with a trusted index and room in the pool")
	}
	if _, err := os.Lstat(dir1); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the parked worktree is still at %s: %v", dir1, err)
	}
	entries, err := p.Entries()
	if err != nil || len(entries) != 1 {
		t.Fatalf("entries after parking: %v, %v", entries, err)
	}

	next := testutil.Commit(t, p.Repo.WorkTree, map[string]string{"src/b.txt": "b2\n"}, "two")
	dir2 := filepath.Join(p.Dir, "worktrees", "t2")
	c := p.Claim(ctx, "t2", dir2)
	if c.pooled == nil {
		t.Fatal("the claim did not take the parked worktree")
	}
	var out strings.Builder
	if err := c.Checkout(ctx, next, &out); err != nil {
		t.Fatal(err)
	}
	if out.Len() > 0 {
		t.Fatalf("the pooled worktree was not used: %s", out.String())
	}
	if entries, _ := p.Entries(); len(entries) != 0 {
		t.Fatalf("the pool still lists %v", entries)
	}
	for rel, want := range map[string]string{"a.txt": "a\n", "src/b.txt": "b2\n"} {
		if got, err := os.ReadFile(filepath.Join(dir2, rel)); err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", rel, got, err, want)
		}
	}
	for _, rel := range []string{"src/new.txt", "src/link"} {
		if _, err := os.Lstat(filepath.Join(dir2, rel)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still in the reused worktree: %v", rel, err)
		}
	}
	if got, err := os.ReadFile(filepath.Join(outside, "keep.txt")); err != nil || string(got) != "mine\n" {
		t.Errorf("the link's target changed: %q, %v", got, err)
	}
	if st := testutil.Git(t, dir2, "status", "--porcelain", "--ignored"); st != "" {
		t.Errorf("git status in the reused worktree: %q", st)
	}
	if head := testutil.Git(t, dir2, "rev-parse", "HEAD"); head != next {
		t.Errorf("HEAD = %s, want %s", head, next)
	}
}

// Fill refuses when nudge.pool is 0, adds up to the bound, and Clear
// removes what it added; the removed worktrees wait in the trash until
// EmptyTrash.
func TestFillAndClear(t *testing.T) {
	ctx := context.Background()
	p, _ := newPool(t)
	testutil.Git(t, p.Repo.WorkTree, "config", "nudge.pool", "0")
	var ref *refusal.Refusal
	if _, _, err := p.Fill(ctx); !errors.As(err, &ref) {
		t.Fatalf("Fill with nudge.pool 0: %v, want a refusal", err)
	}
	testutil.Git(t, p.Repo.WorkTree, "config", "nudge.pool", "1")
	e, full, err := p.Fill(ctx)
	if err != nil || full || e == nil || e.Name != "p1" {
		t.Fatalf("Fill: %+v, %v, %v", e, full, err)
	}
	if e, full, err := p.Fill(ctx); err != nil || !full || e != nil {
		t.Fatalf("Fill of a full pool: %+v, %v, %v", e, full, err)
	}
	if n := p.Sizes([]Entry{*e}); n <= 0 {
		t.Errorf("Sizes of a fresh worktree: %d", n)
	}
	n, err := p.Clear(ctx)
	if err != nil || n != 1 {
		t.Fatalf("Clear: %d, %v", n, err)
	}
	if entries, _ := p.Entries(); len(entries) != 0 || p.Leftovers() != 0 {
		t.Fatalf("after Clear: %v, %d leftovers", entries, p.Leftovers())
	}
	if ents, _ := os.ReadDir(p.trashDir()); !hasTrash(ents) {
		t.Fatal("Clear left nothing in the trash: the worktree was deleted under the locks")
	}
	if err := p.EmptyTrash(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(p.trashDir()); hasTrash(ents) {
		t.Fatalf("EmptyTrash left %v", ents)
	}
	if wts := testutil.Git(t, p.Repo.WorkTree, "worktree", "list", "--porcelain"); strings.Count(wts, "worktree ") != 1 {
		t.Errorf("git still records the pooled worktree:\n%s", wts)
	}
}

// RemoveWorktree removes only folders inside the state folder, and never
// the trash itself.
func TestRemoveWorktreeOnlyInsideState(t *testing.T) {
	p, _ := newPool(t)
	for _, dir := range []string{t.TempDir(), filepath.Join(p.Repo.WorkTree, "src"), filepath.Join(p.Dir, TrashDirName, "x")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := p.RemoveWorktree(dir); err == nil {
			t.Errorf("RemoveWorktree(%s) succeeded", dir)
		}
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s was removed: %v", dir, err)
		}
	}
}

// A worktree Fill adds has a trusted index newer, to the second, than
// every file in it: none is racily clean, so the first task that takes
// it is proved clean by stat data alone, no file read again.
func TestFillLeavesNoRacyEntry(t *testing.T) {
	ctx := context.Background()
	p, _ := newPool(t)
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("d%d/f%d.txt", i%4, i)] = fmt.Sprintf("file %d\n", i)
	}
	testutil.Commit(t, p.Repo.WorkTree, files, "more")
	testutil.Git(t, p.Repo.WorkTree, "config", "nudge.pool", "1")
	e, _, err := p.Fill(ctx)
	if err != nil || e == nil {
		t.Fatalf("Fill: %+v, %v", e, err)
	}
	st, err := os.Stat(e.Path + ".index")
	if err != nil {
		t.Fatal(err)
	}
	out, err := testutil.GitIO(p.Repo.WorkTree, nil, []string{"GIT_INDEX_FILE=" + e.Path + ".index"}, "ls-files", "--debug")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(out, "\n") {
		v, ok := strings.CutPrefix(strings.TrimSpace(line), "mtime: ")
		if !ok {
			continue
		}
		n++
		sec, _, _ := strings.Cut(v, ":")
		s, err := strconv.ParseInt(sec, 10, 64)
		if err != nil {
			t.Fatalf("ls-files --debug: %q", line)
		}
		if s >= st.ModTime().Unix() {
			t.Fatalf("an entry's mtime (%s) is in the trusted index's second or later (%d): it is racily clean", v, st.ModTime().Unix())
		}
	}
	if n < 40 {
		t.Fatalf("ls-files --debug listed %d entries:\n%s", n, out)
	}
}
