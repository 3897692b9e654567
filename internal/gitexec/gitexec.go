// Package gitexec is the only place in the suite that starts the git
// command.
//
// Each child process gets a clean environment: inherited GIT_INDEX_FILE,
// GIT_OBJECT_DIRECTORY and friends are dropped, GIT_DIR and GIT_WORK_TREE
// are set to the repository found at discovery, optional locks are off and
// hooks point at /dev/null, so no hook ever runs and the user's index is
// never refreshed behind their back. Failures are an *Error carrying git's
// exit status and complaint. Package git, the porcelain, starts every git
// it needs through Run, Start and Command.
package gitexec

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// Error is a failed git invocation: the arguments, git's exit code and what
// it wrote to stderr.
type Error struct {
	Args     []string
	ExitCode int
	Stderr   string
	Err      error
	// Filter is set when git failed because a clean/smudge filter's
	// program is not installed; the message then says so.
	Filter *MissingFilter
}

func (e *Error) Error() string {
	if e.Filter != nil {
		return e.Filter.Message()
	}
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

func (e *Error) Unwrap() error { return e.Err }

// ExitCode returns git's exit status carried by err, or -1.
func ExitCode(err error) int {
	var ge *Error
	if errors.As(err, &ge) {
		return ge.ExitCode
	}
	return -1
}

// strippedEnv lists inherited variables a child must never see unless this
// package sets them on purpose.
var strippedEnv = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_PREFIX", "GIT_COMMON_DIR",
	"GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM",
	"GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER", "PAGER",
	"GIT_QUARANTINE_PATH", "GIT_OPTIONAL_LOCKS", "GIT_TERMINAL_PROMPT",
	"GIT_REFLOG_ACTION",
}

// CleanEnv is the environment policy for a child that works on a path
// rather than the discovered repository (git worktree list in a folder):
// base without the variables in strippedEnv, messages in English,
// optional locks, prompts, editor and pager off.
func CleanEnv(base []string) []string {
	out := make([]string, 0, len(base)+8)
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, s := range strippedEnv {
			if k == s {
				drop = true
				break
			}
		}
		if !drop {
			out = append(out, kv)
		}
	}
	out = untranslated(out)
	return append(out,
		"GIT_OPTIONAL_LOCKS=0",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_EDITOR=:",
		"GIT_PAGER=cat",
	)
}

// untranslated returns env changed so that git writes its messages in
// English: this package recognises conditions (not a repository, a ref that
// moved) by git's stderr, which a translated git would word differently.
// LANGUAGE is dropped and LC_MESSAGES forced to C; an LC_ALL (which would
// override LC_MESSAGES) is replaced by LC_CTYPE of the same value, so the
// user's character set still applies.
func untranslated(env []string) []string {
	all := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "LC_ALL="); ok {
			all = v
		}
	}
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "LANGUAGE", k == "LC_MESSAGES", k == "LC_ALL":
		case k == "LC_CTYPE" && all != "":
		default:
			out = append(out, kv)
		}
	}
	if all != "" {
		out = append(out, "LC_CTYPE="+all)
	}
	return append(out, "LC_MESSAGES=C")
}

// globalArgs are given to every git child: hooks off, no fsmonitor daemon
// spawned on our behalf, no advice text to parse around.
var globalArgs = []string{
	"-c", "submodule.recurse=false",
	"-c", "core.hooksPath=/dev/null",
	"-c", "advice.detachedHead=false",
	"-c", "core.fsmonitor=false",
	"--no-optional-locks",
}

// Cmd describes one git invocation.
type Cmd struct {
	Args   []string
	Env    []string // extra KEY=VALUE pairs
	Stdin  io.Reader
	Stdout io.Writer // when nil, output is captured and returned
	Stderr io.Writer // when nil, stderr is captured for the error
	Dir    string    // when empty, the work tree (the git dir without one)
	// FSMonitor, when set, is given to this child as core.fsmonitor
	// instead of false (the others run with it off).
	FSMonitor string
	// Locks lets this child take optional locks (git status writing the
	// stat data it refreshed into its index): only for a private index
	// (GIT_INDEX_FILE in Env), never the user's.
	Locks bool
}

// withFSMonitor is args with globalArgs' "core.fsmonitor=false" replaced
// by core.fsmonitor=v.
func withFSMonitor(args []string, v string) []string {
	for i := range globalArgs {
		if args[i] == "core.fsmonitor=false" {
			args[i] = "core.fsmonitor=" + v
		}
	}
	return args
}

// withLocks turns x (built by command) into a child allowed to take
// optional locks, with private indexes never split, when env names a
// private index; it panics otherwise (a programming error).
func withLocks(x *Child, env []string) {
	private := false
	for _, kv := range env {
		if strings.HasPrefix(kv, "GIT_INDEX_FILE=") {
			private = true
		}
	}
	if !private {
		panic("git: optional locks without a private index")
	}
	args := []string{x.Args[0]}
	args = append(args, PrivateIndexArgs...)
	for _, a := range x.Args[1:] {
		if a != "--no-optional-locks" {
			args = append(args, a)
		}
	}
	x.Args = args
	for i, kv := range x.Env {
		if kv == "GIT_OPTIONAL_LOCKS=0" {
			x.Env[i] = "GIT_OPTIONAL_LOCKS=1"
		}
	}
}

// ErrEnough, returned by a stdout writer, says that it wants no more
// output: the git child is stopped at once (not read to its end) and the
// command returns no error.
var ErrEnough = errors.New("enough output")

// stopWriter passes output on until its writer returns ErrEnough, then
// stops the child.
type stopWriter struct {
	w       io.Writer
	stop    context.CancelFunc
	stopped bool
}

func (s *stopWriter) Write(p []byte) (int, error) {
	if s.stopped {
		return 0, ErrEnough
	}
	n, err := s.w.Write(p)
	if errors.Is(err, ErrEnough) {
		s.stopped = true
		s.stop()
	}
	return n, err
}

// Child is a started or startable git process; only this file names os/exec.
type Child = exec.Cmd

// Command is the one way git is started: every child gets globalArgs
// (hooks off, --no-optional-locks, no fsmonitor, no submodule recursion)
// before args, the environment env (built by one of the three policies:
// RepoEnv, CleanEnv, DiscoverEnv) and the working directory dir. Errors
// from the child become an *Error through GitError.
func Command(ctx context.Context, env []string, dir string, args []string) *Child {
	x := exec.CommandContext(ctx, "git", append(append([]string{}, globalArgs...), args...)...)
	x.Env = env
	x.Dir = dir
	return x
}

// GitError is the one exit-code routine: it wraps err from a git child
// started with args as an *Error carrying git's exit status (or -1 when
// git did not run or was killed) and what it wrote to stderr.
func GitError(args []string, stderr string, err error) *Error {
	code := -1
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	return &Error{Args: args, ExitCode: code, Stderr: stderr, Err: err, Filter: missingFilter(stderr)}
}

// Run runs git for the repository at gitDir with work tree workTree
// (empty for none) as c says, and returns its stdout (empty when c.Stdout
// takes it). A failure is an *Error; one that names a missing filter
// program also names the filter's driver from git config.
func Run(ctx context.Context, gitDir, workTree string, c Cmd) ([]byte, error) {
	return run(ctx, gitDir, workTree, c)
}

func run(ctx context.Context, gitDir, workTree string, c Cmd) ([]byte, error) {
	var sw *stopWriter
	if _, isFile := c.Stdout.(*os.File); c.Stdout != nil && !isFile {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		sw = &stopWriter{w: c.Stdout, stop: cancel}
		c.Stdout = sw
	}
	dir := workTree
	if c.Dir != "" {
		dir = c.Dir
	}
	if workTree == "" && c.Dir == "" {
		dir = gitDir
	}
	x := Command(ctx, append(RepoEnv(gitDir, workTree), c.Env...), dir, c.Args)
	if c.FSMonitor != "" {
		withFSMonitor(x.Args[1:], c.FSMonitor)
	}
	if c.Locks {
		withLocks(x, c.Env)
	}
	x.Stdin = c.Stdin
	var out, errb bytes.Buffer
	if c.Stdout != nil {
		x.Stdout = c.Stdout
	} else {
		x.Stdout = &out
	}
	if c.Stderr != nil {
		x.Stderr = io.MultiWriter(c.Stderr, &errb)
	} else {
		x.Stderr = &errb
	}
	err := x.Run()
	if sw != nil && sw.stopped {
		return out.Bytes(), nil // stopped on purpose: whatever it said after
	}
	if err != nil {
		ge := GitError(c.Args, errb.String(), err)
		nameFilter(ctx, gitDir, workTree, ge)
		return out.Bytes(), ge
	}
	return out.Bytes(), nil
}

// RepoEnv is the environment policy for a child working on the
// discovered repository: CleanEnv of this process's environment, with
// GIT_DIR and GIT_WORK_TREE set to it (each when not empty).
func RepoEnv(gitDir, workTree string) []string {
	env := CleanEnv(os.Environ())
	if gitDir != "" {
		env = append(env, "GIT_DIR="+gitDir)
	}
	if workTree != "" {
		env = append(env, "GIT_WORK_TREE="+workTree)
	}
	return env
}

// DiscoverEnv is the environment policy for discovery, which must see what
// the user set (GIT_DIR, GIT_WORK_TREE, -C): only the index and object
// overrides are dropped, and git's messages are kept in English.
func DiscoverEnv(base []string) []string {
	env := []string{}
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if k == "GIT_INDEX_FILE" || k == "GIT_OBJECT_DIRECTORY" || k == "GIT_PREFIX" {
			continue
		}
		env = append(env, kv)
	}
	return untranslated(env)
}

// PrivateIndexArgs keep a private index self-contained: never split into a
// shared index file in the git dir.
var PrivateIndexArgs = []string{"-c", "core.splitIndex=false"}

// Proc is a long-lived git child spoken to through pipes.
type Proc struct {
	args   []string
	cmd    *Child
	in     io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
	done   bool
}

// Start starts a long-lived git child for the repository at gitDir and
// workTree, in the work tree, its input and output pipes.
func Start(ctx context.Context, gitDir, workTree string, args ...string) (*Proc, error) {
	p := &Proc{args: args}
	p.cmd = Command(ctx, RepoEnv(gitDir, workTree), workTree, args)
	p.cmd.Stderr = &p.stderr
	var err error
	if p.in, err = p.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p.out = bufio.NewReaderSize(out, 64<<10)
	if err := p.cmd.Start(); err != nil {
		return nil, GitError(args, "", err)
	}
	return p, nil
}

// Stdin is the child's input.
func (p *Proc) Stdin() io.Writer { return p.in }

// Stdout is the child's output, buffered.
func (p *Proc) Stdout() *bufio.Reader { return p.out }

// Close ends the child's input and waits for it.
func (p *Proc) Close() error {
	if p.done {
		return nil
	}
	p.done = true
	p.in.Close()
	_, _ = io.Copy(io.Discard, p.out)
	if err := p.cmd.Wait(); err != nil {
		return p.Wrap(err)
	}
	return nil
}

// Fail turns a pipe error into git's own complaint when it has one.
func (p *Proc) Fail(err error) error {
	if p.done {
		return p.Wrap(err)
	}
	p.done = true
	p.in.Close()
	if werr := p.cmd.Wait(); werr != nil {
		return p.Wrap(werr)
	}
	return p.Wrap(err)
}

// Wrap is err as an *Error of this child, with what it wrote to stderr.
func (p *Proc) Wrap(err error) error {
	return GitError(p.args, p.stderr.String(), err)
}

// Kill stops the child at once (it may be blocked writing).
func (p *Proc) Kill() {
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
	}
}

// RefLockFailure reports whether update-ref failed because the ref was not
// where the caller expected: it exists (create-only), it is at another
// object or is missing, or another process holds its
// lock file right now (it is being changed underneath). Other failures (a
// bad name, a folder/file clash, a missing object, permissions) are real
// errors: treating them as conflicts would make an allocation loop retry
// them a thousand times and hide git's message.
func RefLockFailure(stderr string) bool {
	return strings.Contains(stderr, "reference already exists") ||
		strings.Contains(stderr, "but expected") ||
		strings.Contains(stderr, "unable to resolve reference") ||
		(strings.Contains(stderr, ".lock'") && strings.Contains(stderr, "File exists"))
}
