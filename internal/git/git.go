// Package git is the only place in the suite that runs the git command.
//
// Everything above it talks to a *Repo through domain-shaped methods
// (WriteTree, CommitTree, UpdateRef, ...). Each child process gets a clean
// environment: inherited GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY and friends are
// dropped, GIT_DIR and GIT_WORK_TREE are set to the repository found at
// discovery, optional locks are off and hooks point at /dev/null, so no hook
// ever runs and the user's index is never refreshed behind their back.
package git

// This file holds the one way a git process is started (stripped
// environment, --no-optional-locks, hooks off, typed errors), long-lived
// processes fed through their stdin, and helpers for git's output and
// command lines.

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

func cleanEnv(base []string) []string {
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

// cmd describes one git invocation.
type cmd struct {
	args   []string
	env    []string // extra KEY=VALUE pairs
	stdin  io.Reader
	stdout io.Writer // when nil, output is captured and returned
	stderr io.Writer // when nil, stderr is captured for the error
	dir    string
	// fsmonitor, when set, is given to this child as core.fsmonitor
	// instead of false (the others run with it off).
	fsmonitor string
	// locks lets this child take optional locks (git status writing the
	// stat data it refreshed into its index): only for a private index
	// (GIT_INDEX_FILE in env), never the user's.
	locks bool
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
func withLocks(x *child, env []string) {
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
	args = append(args, privateIndexArgs...)
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

// child is a started or startable git process; only this file names os/exec.
type child = exec.Cmd

// command is the one way this package starts git: every child gets
// globalArgs (hooks off, --no-optional-locks, no fsmonitor, no submodule
// recursion) before args, the environment env (built by one of the three
// policies below: r.env, cleanEnv, discoverEnv) and the working directory
// dir. Errors from the child become an *Error through gitError.
func command(ctx context.Context, env []string, dir string, args []string) *child {
	x := exec.CommandContext(ctx, "git", append(append([]string{}, globalArgs...), args...)...)
	x.Env = env
	x.Dir = dir
	return x
}

// gitError is the one exit-code routine: it wraps err from a git child
// started with args as an *Error carrying git's exit status (or -1 when
// git did not run or was killed) and what it wrote to stderr.
func gitError(args []string, stderr string, err error) *Error {
	code := -1
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	return &Error{Args: args, ExitCode: code, Stderr: stderr, Err: err, Filter: missingFilter(stderr)}
}

func (r *Repo) run(ctx context.Context, c cmd) ([]byte, error) {
	var sw *stopWriter
	if _, isFile := c.stdout.(*os.File); c.stdout != nil && !isFile {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		sw = &stopWriter{w: c.stdout, stop: cancel}
		c.stdout = sw
	}
	dir := r.WorkTree
	if c.dir != "" {
		dir = c.dir
	}
	if r.WorkTree == "" && c.dir == "" {
		dir = r.GitDir
	}
	x := command(ctx, append(r.env(), c.env...), dir, c.args)
	if c.fsmonitor != "" {
		withFSMonitor(x.Args[1:], c.fsmonitor)
	}
	if c.locks {
		withLocks(x, c.env)
	}
	x.Stdin = c.stdin
	var out, errb bytes.Buffer
	if c.stdout != nil {
		x.Stdout = c.stdout
	} else {
		x.Stdout = &out
	}
	if c.stderr != nil {
		x.Stderr = io.MultiWriter(c.stderr, &errb)
	} else {
		x.Stderr = &errb
	}
	err := x.Run()
	if sw != nil && sw.stopped {
		return out.Bytes(), nil // stopped on purpose: whatever it said after
	}
	if err != nil {
		ge := gitError(c.args, errb.String(), err)
		r.nameFilter(ctx, ge)
		return out.Bytes(), ge
	}
	return out.Bytes(), nil
}

// git runs a read-style command and returns its stdout.
func (r *Repo) git(ctx context.Context, args ...string) ([]byte, error) {
	return r.run(ctx, cmd{args: args})
}

// line runs git and returns stdout trimmed of its final newline.
func (r *Repo) line(ctx context.Context, args ...string) (string, error) {
	out, err := r.git(ctx, args...)
	return strings.TrimRight(string(out), "\n"), err
}

func (r *Repo) env() []string {
	env := cleanEnv(os.Environ())
	if r.GitDir != "" {
		env = append(env, "GIT_DIR="+r.GitDir)
	}
	if r.WorkTree != "" {
		env = append(env, "GIT_WORK_TREE="+r.WorkTree)
	}
	return env
}

// quoteStdinPath quotes p the way git's C-style unquoting reads it back, when
// a plain line would not carry it intact (a newline or carriage return, any
// other control byte, or a leading double quote).
func quoteStdinPath(p string) string {
	need := strings.HasPrefix(p, `"`)
	for i := 0; i < len(p) && !need; i++ {
		if p[i] < 0x20 || p[i] == 0x7f {
			need = true
		}
	}
	if !need {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, `\%03o`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// splitZ splits NUL-terminated records.
func splitZ(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}

// maxPathArgs is how many paths a command line may name; more could pass
// the system's limit on argument size (ARG_MAX), so callers read more
// broadly and filter instead.
const maxPathArgs = 1000

// zSplitter collects NUL-terminated records as they stream in and stops the
// producer once more than limit records are kept.
type zSplitter struct {
	rest   []byte
	paths  []string
	kept   int
	limit  int
	keep   func(string) bool
	over   bool
	cancel func()
}

func (z *zSplitter) Write(p []byte) (int, error) {
	if z.over {
		return 0, io.ErrClosedPipe
	}
	z.rest = append(z.rest, p...)
	for {
		i := bytes.IndexByte(z.rest, 0)
		if i < 0 {
			break
		}
		path := string(z.rest[:i])
		z.rest = z.rest[i+1:]
		z.paths = append(z.paths, path)
		if z.keep == nil || z.keep(path) {
			z.kept++
		}
		if z.limit >= 0 && z.kept > z.limit {
			z.over = true
			z.cancel()
			return 0, io.ErrClosedPipe
		}
	}
	return len(p), nil
}

// literalSpecs turns paths into top-level literal pathspecs.
func literalSpecs(paths []string) []string {
	specs := make([]string, len(paths))
	for i, p := range paths {
		specs[i] = ":(top,literal)" + p
	}
	return specs
}

// proc is a long-lived git child spoken to through pipes.
type proc struct {
	args   []string
	cmd    *child
	in     io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
	done   bool
}

func (r *Repo) startProc(ctx context.Context, args ...string) (*proc, error) {
	p := &proc{args: args}
	p.cmd = command(ctx, r.env(), r.WorkTree, args)
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
		return nil, gitError(args, "", err)
	}
	return p, nil
}

// close ends the child's input and waits for it.
func (p *proc) close() error {
	if p.done {
		return nil
	}
	p.done = true
	p.in.Close()
	_, _ = io.Copy(io.Discard, p.out)
	if err := p.cmd.Wait(); err != nil {
		return p.wrap(err)
	}
	return nil
}

// fail turns a pipe error into git's own complaint when it has one.
func (p *proc) fail(err error) error {
	if p.done {
		return p.wrap(err)
	}
	p.done = true
	p.in.Close()
	if werr := p.cmd.Wait(); werr != nil {
		return p.wrap(werr)
	}
	return p.wrap(err)
}

func (p *proc) wrap(err error) error {
	return gitError(p.args, p.stderr.String(), err)
}
