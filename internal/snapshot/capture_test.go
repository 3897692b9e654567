package snapshot

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/git"
)

// fixture is a repository in a temp folder; the fixture itself is built
// with the git command directly, the code under test goes through
// internal/git.
type fixture struct {
	t   *testing.T
	dir string
}

func newFixture(t *testing.T, format string) *fixture {
	f := &fixture{t: t, dir: t.TempDir()}
	f.git("init", "-q", "--object-format="+format)
	return f
}

func (f *fixture) git(args ...string) string {
	f.t.Helper()
	return f.gitEnv(nil, args...)
}

func (f *fixture) gitEnv(env []string, args ...string) string {
	f.t.Helper()
	c := exec.Command("git", args...)
	c.Dir = f.dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			c.Env = append(c.Env, kv)
		}
	}
	c.Env = append(c.Env, "GIT_CONFIG_NOSYSTEM=1", "HOME="+f.t.TempDir(), "GIT_AUTHOR_NAME=T",
		"GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@x")
	c.Env = append(c.Env, env...)
	out, err := c.CombinedOutput()
	if err != nil {
		f.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (f *fixture) write(name, content string) {
	f.t.Helper()
	p := filepath.Join(f.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) remove(name string) {
	f.t.Helper()
	if err := os.RemoveAll(filepath.Join(f.dir, name)); err != nil {
		f.t.Fatal(err)
	}
}

// addAllTree is the oracle: the tree `git add -A` writes from a copy of
// the index.
func (f *fixture) addAllTree() string {
	f.t.Helper()
	ix := filepath.Join(f.t.TempDir(), "index")
	if data, err := os.ReadFile(filepath.Join(f.dir, ".git", "index")); err == nil {
		if err := os.WriteFile(ix, data, 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
	env := []string{"GIT_INDEX_FILE=" + ix}
	f.gitEnv(env, "add", "-A")
	return f.gitEnv(env, "write-tree")
}

func (f *fixture) capture() Result {
	f.t.Helper()
	repo, err := git.Discover(context.Background(), f.dir)
	if err != nil {
		f.t.Fatal(err)
	}
	res, err := Capture(context.Background(), repo, Options{MaxUntracked: DefaultMaxUntracked})
	if err != nil {
		f.t.Fatal(err)
	}
	if res.Tree == "" {
		res.Tree = f.git("rev-parse", "HEAD^{tree}")
	}
	return res
}

// TestCaptureMatchesAddAll checks the tree surgery against git add -A on
// the shapes that are easy to get wrong: a file turned into a folder and
// back, folders emptied, renames staged, mode-only changes, intent-to-add.
func TestCaptureMatchesAddAll(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, format)
			f.write("file-becomes-dir", "f\n")
			f.write("dir-becomes-file/x", "x\n")
			f.write("dir-becomes-file/y/z", "z\n")
			f.write("emptied/only", "o\n")
			f.write("deep/a/b/c/keep", "k\n")
			f.write("deep/a/b/c/edit", "e\n")
			f.write("renamed", "r\n")
			f.write("mode", "#!/bin/sh\n")
			f.write("same", "s\n")
			f.git("add", "-A")
			f.git("commit", "-qm", "base")

			if r := f.capture(); !r.Clean || r.Tree != f.git("rev-parse", "HEAD^{tree}") {
				t.Fatalf("clean work tree captured as %+v", r)
			}

			f.remove("file-becomes-dir")
			f.write("file-becomes-dir/inner", "i\n")
			f.remove("dir-becomes-file")
			f.write("dir-becomes-file", "now a file\n")
			f.remove("emptied/only")
			f.write("deep/a/b/c/edit", "edited\n")
			f.write("deep/a/new/file", "n\n")
			f.git("mv", "renamed", "renamed-to")
			if err := os.Chmod(filepath.Join(f.dir, "mode"), 0o755); err != nil {
				t.Fatal(err)
			}
			f.write("intent", "i\n")
			f.git("add", "-N", "intent")
			// Names around a folder's implicit "/" in git's tree order.
			for _, n := range []string{"deep/a-b", "deep/a.txt", "deep/a0", "deep/a/fresh", "deep/ab", "deep/a b"} {
				f.write(n, n+"\n")
			}
			f.write("staged-new", "s\n")
			f.git("add", "staged-new")

			want := f.addAllTree()
			r := f.capture()
			if r.Clean || r.Tree != want {
				t.Errorf("capture %s (clean %v), git add -A %s", r.Tree, r.Clean, want)
				t.Log(f.git("diff-tree", "-r", "--name-status", want, r.Tree))
			}
		})
	}
}

// TestCaptureFileModeOff follows core.fileMode=false the way git does: a
// chmod alone is no change, and an edited file keeps its recorded mode.
func TestCaptureFileModeOff(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "sha1")
	f.write("tool.sh", "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(f.dir, "tool.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.write("plain", "p\n")
	f.git("add", "-A")
	f.git("commit", "-qm", "base")
	f.git("config", "core.fileMode", "false")
	if err := os.Chmod(filepath.Join(f.dir, "plain"), 0o755); err != nil {
		t.Fatal(err)
	}
	if r := f.capture(); !r.Clean {
		t.Errorf("a chmod with core.fileMode=false was captured: %+v", r)
	}
	if err := os.Chmod(filepath.Join(f.dir, "tool.sh"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.write("tool.sh", "#!/bin/sh\necho edited\n")
	want := f.addAllTree()
	if r := f.capture(); r.Tree != want {
		t.Errorf("capture %s, git add -A %s", r.Tree, want)
	}
}

// TestCaptureRandomEdits applies random edits (new, changed, deleted and
// staged files, files turned into folders and back, mode changes, links)
// and checks each capture against git add -A.
func TestCaptureRandomEdits(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "sha1")
	names := []string{"a", "b", "d/a", "d/b", "d/e/f", "x/y/z", "d", "x", "x/y", "link"}
	rnd := uint64(12345)
	next := func(n int) int {
		rnd = rnd*6364136223846793005 + 1442695040888963407
		return int((rnd >> 33) % uint64(n))
	}
	f.write("seed", "seed\n")
	f.git("add", "-A")
	f.git("commit", "-qm", "base")
	rounds := 25
	if testing.Short() {
		rounds = 8 // the fast tier: fewer rounds of the same edits
	}
	for round := 0; round < rounds; round++ {
		for k := 0; k < 4; k++ {
			name := names[next(len(names))]
			p := filepath.Join(f.dir, name)
			// Clear files standing where a parent folder must go.
			for dir := filepath.Dir(name); dir != "."; dir = filepath.Dir(dir) {
				if st, err := os.Lstat(filepath.Join(f.dir, dir)); err == nil && !st.IsDir() {
					os.Remove(filepath.Join(f.dir, dir))
				}
			}
			switch next(7) {
			case 0, 1:
				os.RemoveAll(p)
				f.write(name, strings.Repeat("v", next(5))+"\n")
			case 2:
				os.RemoveAll(p)
			case 3:
				os.Chmod(p, 0o755)
			case 4:
				os.RemoveAll(p)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
					os.Symlink("seed", p)
				}
			case 5:
				f.git("add", "-A")
			case 6:
				if next(2) == 0 {
					f.git("add", "-A")
					f.git("commit", "-qm", "step", "--allow-empty")
				}
			}
		}
		want := f.addAllTree()
		if r := f.capture(); r.Tree != want {
			t.Fatalf("round %d: capture %s, git add -A %s\n%s\n%s", round, r.Tree, want,
				f.git("status", "--porcelain"), f.git("diff-tree", "-r", "--name-status", want, r.Tree))
		}
	}
}
