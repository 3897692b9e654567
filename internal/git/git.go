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
	"context"
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
