// Package git is the porcelain: everything above it talks to a *Repo
// through domain-shaped methods (WriteTree, CommitTree, UpdateRef, ...).
// Each git it needs is started through package gitexec (the clean
// environment, hooks off, typed errors); git's files that are cheaper to
// read and write in this process are gitstore's and gitindex's, which
// Repo embeds.
package git

// This file holds how Repo starts git (through gitexec), long-lived
// processes fed through their stdin, and helpers for git's output and
// command lines.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/nudgethis/git-nudge/internal/gitexec"
)

// Error is a failed git invocation: the arguments, git's exit code and
// what it wrote to stderr (gitexec.Error).
type Error = gitexec.Error

// MissingFilter is a clean/smudge filter whose program is not installed
// (gitexec.MissingFilter).
type MissingFilter = gitexec.MissingFilter

// ErrEnough, returned by a stdout writer, says that it wants no more
// output: the git child is stopped at once (not read to its end) and the
// command returns no error.
var ErrEnough = gitexec.ErrEnough

// ExitCode returns git's exit status carried by err, or -1.
func ExitCode(err error) int { return gitexec.ExitCode(err) }

// command starts nothing itself: it is gitexec.Command, named here for
// the tests that build a git child by hand.
var command = gitexec.Command

// cmd describes one git invocation (gitexec.Cmd).
type cmd = gitexec.Cmd

// run runs git for r as c says (gitexec.Run).
func (r *Repo) run(ctx context.Context, c cmd) ([]byte, error) {
	return gitexec.Run(ctx, r.GitDir, r.WorkTree, c)
}

// git runs a read-style command and returns its stdout.
func (r *Repo) git(ctx context.Context, args ...string) ([]byte, error) {
	return r.run(ctx, cmd{Args: args})
}

// line runs git and returns stdout trimmed of its final newline.
func (r *Repo) line(ctx context.Context, args ...string) (string, error) {
	out, err := r.git(ctx, args...)
	return strings.TrimRight(string(out), "\n"), err
}

// startProc starts a long-lived git child for r, spoken to through pipes.
func (r *Repo) startProc(ctx context.Context, args ...string) (*gitexec.Proc, error) {
	return gitexec.Start(ctx, r.GitDir, r.WorkTree, args...)
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
