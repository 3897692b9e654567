// Package testutil is for the suite's Go tests only: it isolates the test
// process from the developer's git configuration and builds throwaway
// repositories in temp folders. Production code never imports it.
//
// Use it from a package's TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }
package testutil

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/proc"
)

var isolatedHome string

// repoLocal are variables that would make a git child use some other
// repository, index or object store than the one a test names.
var repoLocal = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_PREFIX",
	"GIT_CEILING_DIRECTORIES", "GIT_NAMESPACE", "GIT_CONFIG",
	"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG_GLOBAL",
	"GIT_CONFIG_SYSTEM",
}

// Main makes the process environment independent of the machine's git
// setup, runs the tests and cleans up. The environment gets a fresh HOME
// (and XDG_CONFIG_HOME) holding only a .gitconfig with a test identity and
// init.defaultBranch=main, GIT_CONFIG_NOSYSTEM=1, fixed author and
// committer names and dates, and none of the variables that redirect git to
// another repository. Helper subprocesses (the test binary run again)
// inherit all of it.
func Main(m *testing.M) int {
	if len(os.Args) > 1 && os.Args[1] == proc.ReapArg {
		// The package under test ran a command through the reaper, which
		// re-executes the running binary: this test binary.
		return proc.ReapMain(os.Args[2:])
	}
	home, err := os.MkdirTemp("", "nudge-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testutil:", err)
		return 1
	}
	defer os.RemoveAll(home)
	if err := Isolate(home); err != nil {
		fmt.Fprintln(os.Stderr, "testutil:", err)
		return 1
	}
	return m.Run()
}

// Isolate sets the process environment up as Main describes, with home as
// HOME. Main calls it; helper processes inherit its result.
func Isolate(home string) error {
	env, err := IsolatedHome(home)
	if err != nil {
		return err
	}
	for _, k := range repoLocal {
		os.Unsetenv(k)
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	isolatedHome = home
	return nil
}

// Isolated reports whether the process environment is isolated already
// (by Main or Isolate).
func Isolated() bool { return isolatedHome != "" }

// IsolatedHome is the one isolated git environment of the suite's tests
// (this process's, a scenario's, a crash test's child's): it writes
// home/.gitconfig (the test identity, init.defaultBranch=main, no
// detached-HEAD advice, maintenance.auto=false: git commit and the like
// start no git maintenance run --auto, a process that finds nothing to do
// in a test's small repository; git gc --auto run on purpose is not
// affected) and returns the KEY=VALUE variables that confine
// git to it: HOME, XDG_CONFIG_HOME, GIT_CONFIG_NOSYSTEM=1, the author and
// committer names and dates, TZ=UTC.
func IsolatedHome(home string) ([]string, error) {
	gitconfig := "[init]\n\tdefaultBranch = main\n" +
		"[user]\n\tname = Test User\n\temail = test@example.com\n" +
		"[advice]\n\tdetachedHead = false\n" +
		"[maintenance]\n\tauto = false\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
		return nil, err
	}
	return []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test User",
		"GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test User",
		"GIT_COMMITTER_EMAIL=test@example.com",
		"GIT_AUTHOR_DATE=2026-01-02T03:04:05Z",
		"GIT_COMMITTER_DATE=2026-01-02T03:04:05Z",
		"TZ=UTC",
	}, nil
}

// Env is the environment for a git child started by a test: the isolated
// process environment without anything that redirects git (a test's own
// t.Setenv("GIT_DIR", ...) included).
func Env() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, l := range repoLocal {
			if k == l {
				keep = false
				break
			}
		}
		if keep {
			env = append(env, kv)
		}
	}
	return env
}

func mustBeIsolated(t testing.TB) {
	t.Helper()
	if isolatedHome == "" {
		t.Fatal("testutil: call os.Exit(testutil.Main(m)) from TestMain so git cannot read the developer's configuration")
	}
}

// Git runs git in dir and returns its stdout without the final newline; it
// fails the test when git fails.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := TryGit(dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TryGit runs git in dir and returns its stdout without the final newline,
// or an error carrying git's stderr.
func TryGit(dir string, args ...string) (string, error) {
	if isolatedHome == "" {
		return "", fmt.Errorf("testutil: call os.Exit(testutil.Main(m)) from TestMain first")
	}
	c := exec.Command("git", args...)
	c.Dir = dir
	c.Env = Env()
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		return "", fmt.Errorf("git %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, stderr.String())
	}
	return strings.TrimSuffix(stdout.String(), "\n"), nil
}

// GitIO runs git in dir with stdin (nil: none) and env added to the
// process environment, and returns its stdout as git wrote it, or an
// error carrying git's stderr.
func GitIO(dir string, stdin []byte, env []string, args ...string) (string, error) {
	c := exec.Command("git", args...)
	c.Dir = dir
	c.Env = append(os.Environ(), env...)
	if stdin != nil {
		c.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		return "", fmt.Errorf("git %q (in %s): %v\n%s", args, dir, err, stderr.String())
	}
	return stdout.String(), nil
}

// Repo creates a fresh repository (branch main, no commit) in a new temp
// folder and returns its absolute path with symlinks resolved. initArgs go
// to git init (for example "--object-format=sha256" or "--bare").
func Repo(t testing.TB, initArgs ...string) string {
	t.Helper()
	mustBeIsolated(t)
	dir := RealTempDir(t)
	Git(t, dir, append([]string{"init", "-q"}, initArgs...)...)
	return dir
}

// RealTempDir is t.TempDir with symlinks resolved (macOS's /var is one), so
// paths compare equal to the ones git prints.
func RealTempDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// WriteFile writes content to rel under dir, creating folders.
func WriteFile(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Commit writes files (path -> content) into the work tree at dir, stages
// everything and commits it; it returns the new commit's id.
func Commit(t testing.TB, dir string, files map[string]string, message string) string {
	t.Helper()
	for rel, content := range files {
		WriteFile(t, dir, rel, content)
	}
	Git(t, dir, "add", "-A")
	Git(t, dir, "-c", "core.hooksPath=/dev/null", "commit", "-q", "--allow-empty", "--no-gpg-sign", "-m", message)
	return Git(t, dir, "rev-parse", "HEAD")
}
