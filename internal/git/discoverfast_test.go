package git

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/testutil"
)

// discoverFast answers what git rev-parse answers wherever it answers, and
// leaves to git every layout it does not know.
func TestDiscoverFastAgreesWithGit(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	main := filepath.Join(base, "main")
	testutil.Git(t, base, "init", "-q", main)
	testutil.Commit(t, main, map[string]string{"a/b/f": "1\n", "top": "2\n"}, "one")
	testutil.Git(t, main, "worktree", "add", "-q", "--detach", filepath.Join(base, "linked"))
	sub := filepath.Join(base, "subsrc")
	testutil.Git(t, base, "init", "-q", sub)
	testutil.Commit(t, sub, map[string]string{"s": "1\n"}, "sub")
	testutil.Git(t, main, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "mod")
	if err := os.Symlink(filepath.Join(main, "a"), filepath.Join(base, "link-to-a")); err != nil {
		t.Fatal(err)
	}
	sha256 := filepath.Join(base, "sha256")
	testutil.Git(t, base, "init", "-q", "--object-format=sha256", sha256)
	bare := filepath.Join(base, "bare.git")
	testutil.Git(t, base, "init", "-q", "--bare", bare)
	odd := filepath.Join(base, "odd")
	testutil.Git(t, base, "init", "-q", odd)
	testutil.Git(t, odd, "config", "include.path", filepath.Join(base, "nothing"))

	for _, c := range []struct {
		dir  string
		fast bool
	}{
		{main, true},
		{filepath.Join(main, "a", "b"), true},
		{filepath.Join(base, "linked"), true},
		{filepath.Join(base, "linked", "a"), true},
		{filepath.Join(main, "mod"), false}, // its config sets core.worktree
		{filepath.Join(base, "link-to-a"), true},
		{sha256, true},
		{bare, false},
		{filepath.Join(main, ".git"), false},
		{filepath.Join(main, ".git", "refs"), false},
		{odd, false},
		{base, false}, // no repository: git's message
	} {
		r, ok := discoverFast(c.dir)
		if ok != c.fast {
			t.Errorf("%s: discoverFast answered = %v, want %v", c.dir, ok, c.fast)
			continue
		}
		if !ok {
			continue
		}
		cmd := exec.Command("git", "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir", "--show-object-format", "--show-toplevel")
		cmd.Dir = c.dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: git rev-parse: %v", c.dir, err)
		}
		want := strings.Split(strings.TrimSpace(string(out)), "\n")
		got := []string{r.GitDir, r.CommonDir, r.ObjectFormat, r.WorkTree}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: discoverFast = %q, git = %q", c.dir, got, want)
		}
	}
}

// A gitfile's ".." applies to the path with its links followed, as git
// resolves it; a HEAD that holds neither a ref nor an id is git's to judge.
func TestDiscoverFastPhysicalPathsAndBadHead(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	testutil.Git(t, base, "init", "-q", "--bare", filepath.Join(base, "x", "store.git"))
	testutil.Git(t, base, "init", "-q", "--bare", filepath.Join(base, "store.git"))
	if err := os.MkdirAll(filepath.Join(base, "x", "y"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "x", "y"), filepath.Join(base, "sym")); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(base, "wt")
	os.MkdirAll(wt, 0o755)
	if err := os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: ../sym/../store.git\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, ok := discoverFast(wt); ok {
		real, _ := filepath.EvalSymlinks(filepath.Join(base, "x", "store.git"))
		if r.GitDir != real {
			t.Errorf("gitfile through a link: git dir %s, want %s", r.GitDir, real)
		}
	}

	outer := filepath.Join(base, "outer")
	testutil.Git(t, base, "init", "-q", outer)
	inner := filepath.Join(outer, "inner")
	testutil.Git(t, outer, "init", "-q", inner)
	if err := os.WriteFile(filepath.Join(inner, ".git", "HEAD"), []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, ok := discoverFast(inner); ok && r.WorkTree != outer {
		realOuter, _ := filepath.EvalSymlinks(outer)
		if r.WorkTree != realOuter {
			t.Errorf("a git dir with a bad HEAD was taken: %s", r.WorkTree)
		}
	}
}
