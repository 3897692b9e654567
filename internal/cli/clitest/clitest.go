// Package clitest runs a binary's command line in the test process, for
// the command packages' tests: the real kong model and Program.Main (parse
// errors, the operation log's recording, exit statuses, the --json error
// document), against a real repository in a temp folder, with stdout,
// stderr and the exit status captured. Production code never imports it.
//
// The git children the workflows start read the process environment, so a
// test package that uses it isolates that first, from its TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }
package clitest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// Main is a binary's entry point: nudgecmd.Main, autodevcmd.Main.
type Main func(args []string, env *cli.Env) int

// Now is the clock the runner gives commands unless told otherwise: the
// date testutil gives git's author and committer.
var Now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Runner runs command lines of one binary in one folder.
type Runner struct {
	Main Main
	// Dir is the folder the command runs in (its current directory).
	Dir string
	// Vars are the command's environment variables (Env.Getenv sees only
	// these), also added to the environment of the programs it starts.
	Vars map[string]string
	// Now is the command's clock; zero: the package's Now.
	Now time.Time
	// Stdin is what the command reads on stdin.
	Stdin string
	// Terminal and Color say stdout is a terminal, and colours are on.
	Terminal, Color bool
}

// Result is how one command line ended.
type Result struct {
	Args   []string
	Code   int
	Stdout string
	Stderr string
}

// String describes the run for a failure message.
func (r Result) String() string {
	return "[" + strings.Join(r.Args, " ") + "] exit " + strconv.Itoa(r.Code) + "\n--- stdout\n" + r.Stdout + "--- stderr\n" + r.Stderr
}

// Env is the environment a command line of r runs with, writing to
// stdout and stderr.
func (r *Runner) Env(ctx context.Context, stdout, stderr *bytes.Buffer) *cli.Env {
	now := r.Now
	if now.IsZero() {
		now = Now
	}
	vars := r.Vars
	return &cli.Env{
		Ctx:    ctx,
		Stdin:  strings.NewReader(r.Stdin),
		Stdout: stdout,
		Stderr: stderr,
		Dir:    r.Dir,
		Getenv: func(k string) string { return vars[k] },
		Environ: func() []string {
			env := testutil.Env()
			for k, v := range vars {
				env = append(env, k+"="+v)
			}
			return env
		},
		Now:      func() time.Time { return now },
		Terminal: r.Terminal,
		Color:    r.Color,
	}
}

// Run runs one command line (the arguments after the binary's name).
func (r *Runner) Run(t testing.TB, args ...string) Result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := r.Main(args, r.Env(t.Context(), &stdout, &stderr))
	return Result{Args: args, Code: code, Stdout: stdout.String(), Stderr: stderr.String()}
}

// OK runs the command line and fails the test unless it exits 0.
func (r *Runner) OK(t testing.TB, args ...string) Result {
	t.Helper()
	res := r.Run(t, args...)
	if res.Code != cli.ExitOK {
		t.Fatalf("want exit 0: %s", res)
	}
	return res
}

// Fails runs the command line and fails the test unless it exits with
// code.
func (r *Runner) Fails(t testing.TB, code int, args ...string) Result {
	t.Helper()
	res := r.Run(t, args...)
	if res.Code != code {
		t.Fatalf("want exit %d: %s", code, res)
	}
	return res
}

// JSON runs the command line, which must exit 0, and decodes its stdout,
// which must be exactly one JSON document, into v.
func (r *Runner) JSON(t testing.TB, v any, args ...string) Result {
	t.Helper()
	res := r.OK(t, args...)
	Decode(t, res, v)
	return res
}

// Decode decodes res's stdout, which must be exactly one JSON document,
// into v.
func Decode(t testing.TB, res Result, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(res.Stdout))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("stdout is not a JSON document (%v): %s", err, res)
	}
	if dec.More() {
		t.Fatalf("stdout holds more than one JSON document: %s", res)
	}
}

// Usage checks that res is a usage error of the command named cmd
// ("git nudge diff"): exit status 2 and stderr pointing to that command's
// help, with nothing on stdout.
func Usage(t testing.TB, res Result, cmd string) {
	t.Helper()
	if res.Code != cli.ExitUsage {
		t.Errorf("want a usage error (exit 2): %s", res)
	}
	if want := "Run '" + cmd + " -h' for usage."; !strings.Contains(res.Stderr, want) {
		t.Errorf("stderr does not say %q: %s", want, res)
	}
	if res.Stdout != "" {
		t.Errorf("a usage error printed on stdout: %s", res)
	}
}

// HasStdout fails the test unless stdout holds each of wants.
func (r Result) HasStdout(t testing.TB, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(r.Stdout, w) {
			t.Errorf("stdout does not hold %q: %s", w, r)
		}
	}
}

// HasStderr fails the test unless stderr holds each of wants.
func (r Result) HasStderr(t testing.TB, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(r.Stderr, w) {
			t.Errorf("stderr does not hold %q: %s", w, r)
		}
	}
}

// InRepo is a runner of main in a new repository on main with one commit
// ("first") of files (path -> content), and the repository's folder.
func InRepo(t testing.TB, main Main, files map[string]string) (*Runner, string) {
	t.Helper()
	dir := testutil.Repo(t)
	testutil.Commit(t, dir, files, "first")
	return &Runner{Main: main, Dir: dir}, dir
}

// ReadFile is the content of the file rel under dir, "(absent)" when
// there is none.
func ReadFile(t testing.TB, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		if os.IsNotExist(err) {
			return "(absent)"
		}
		t.Fatal(err)
	}
	return string(b)
}
