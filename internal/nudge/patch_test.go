package nudge

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/git"
)

// testRepo makes a repository in a temp folder for unit tests. Fixtures are
// built with the git command directly; the code under test goes through
// internal/git.
func testRepo(t *testing.T, args ...string) (string, func(args ...string) string) {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		c := exec.Command("git", args...)
		c.Dir = dir
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "GIT_") {
				c.Env = append(c.Env, kv)
			}
		}
		c.Env = append(c.Env, "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@x",
			"GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@x")
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run(append([]string{"init", "-q"}, args...)...)
	return dir, run
}

func write(t *testing.T, dir, name, content string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func TestComputeFiles(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			dir, run := testRepo(t, "--object-format="+format)
			write(t, dir, "keep.txt", "same\n", 0o644)
			write(t, dir, "edit.txt", "one\n", 0o644)
			write(t, dir, "gone.txt", "bye\n", 0o644)
			write(t, dir, "script.sh", "#!/bin/sh\n", 0o644)
			write(t, dir, "link", "was a file\n", 0o644)
			run("add", "-A")
			run("commit", "-qm", "base")
			base := run("rev-parse", "HEAD")

			write(t, dir, "edit.txt", "two\n", 0o644)
			run("rm", "-q", "gone.txt")
			if err := os.Chmod(filepath.Join(dir, "script.sh"), 0o755); err != nil {
				t.Fatal(err)
			}
			os.Remove(filepath.Join(dir, "link"))
			if err := os.Symlink("keep.txt", filepath.Join(dir, "link")); err != nil {
				t.Fatal(err)
			}
			write(t, dir, "deep/dir/new file\nline.txt", "new\n", 0o644)
			run("add", "-A")
			run("commit", "-qm", "result")
			result := run("rev-parse", "HEAD")

			repo, err := git.Discover(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			files, err := ComputeFiles(context.Background(), repo, base, result)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]FileChange{}
			for _, f := range files {
				got[f.Path] = f
			}
			if len(files) != 5 {
				t.Fatalf("want 5 changes, got %d: %+v", len(files), files)
			}
			blob := func(rev, path string) string { return run("rev-parse", rev+":"+path) }
			check := func(path, status string, oldMode, newMode *string, oldBlob, newBlob *string) {
				t.Helper()
				f, ok := got[path]
				if !ok {
					t.Fatalf("%q missing from %+v", path, files)
				}
				if f.Status != status || Deref(f.OldMode) != Deref(oldMode) || Deref(f.NewMode) != Deref(newMode) ||
					Deref(f.OldBlob) != Deref(oldBlob) || Deref(f.NewBlob) != Deref(newBlob) ||
					(f.OldMode == nil) != (oldMode == nil) || (f.NewBlob == nil) != (newBlob == nil) {
					t.Errorf("%q: got %s %s->%s %s->%s", path, f.Status, Deref(f.OldMode), Deref(f.NewMode), Deref(f.OldBlob), Deref(f.NewBlob))
				}
			}
			m644, m755, m120 := StrPtr("100644"), StrPtr("100755"), StrPtr("120000")
			check("edit.txt", "M", m644, m644, StrPtr(blob(base, "edit.txt")), StrPtr(blob(result, "edit.txt")))
			check("gone.txt", "D", m644, nil, StrPtr(blob(base, "gone.txt")), nil)
			check("script.sh", "M", m644, m755, StrPtr(blob(base, "script.sh")), StrPtr(blob(base, "script.sh")))
			check("link", "T", m644, m120, StrPtr(blob(base, "link")), StrPtr(blob(result, "link")))
			check("deep/dir/new file\nline.txt", "A", nil, m644, nil, StrPtr(blob(result, "deep/dir/new file\nline.txt")))
			if want := map[string]int{"sha1": 40, "sha256": 64}[format]; len(*got["edit.txt"].NewBlob) != want {
				t.Errorf("blob id %q is not a full %s id", *got["edit.txt"].NewBlob, format)
			}

			none, err := ComputeFiles(context.Background(), repo, base, base)
			if err != nil || len(none) != 0 {
				t.Errorf("same commit: %v %+v", err, none)
			}
		})
	}
}
