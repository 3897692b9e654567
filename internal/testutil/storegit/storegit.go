// Package storegit is test support for the in-process store's own
// tests (internal/gitstore, internal/gitindex), which cannot import
// internal/git: a Store whose git fallbacks (gitstore.Git) are served by
// a plain git process each.
package storegit

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

	"github.com/nudgethis/git-nudge/internal/gitstore"
)

// Open is the Store of the repository whose work tree is dir, its
// fallbacks served by one git process per call.
func Open(dir string) (*gitstore.Store, error) {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "--path-format=absolute",
		"--git-dir", "--git-common-dir", "--show-object-format", "--show-toplevel").Output()
	if err != nil {
		return nil, err
	}
	f := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(f) != 4 {
		return nil, fmt.Errorf("rev-parse said %q", out)
	}
	s := &gitstore.Store{GitDir: f[0], CommonDir: f[1], ObjectFormat: f[2], WorkTree: f[3]}
	s.Git = execGit{s}
	return s, nil
}

// execGit is a plain Git for tests: each call one git process in the
// Store's work tree.
type execGit struct{ s *gitstore.Store }

func (g execGit) run(ctx context.Context, stdin io.Reader, env []string, args ...string) ([]byte, error) {
	x := exec.CommandContext(ctx, "git", args...)
	x.Dir = g.s.WorkTree
	x.Env = append(os.Environ(), env...)
	x.Stdin = stdin
	var stderr bytes.Buffer
	x.Stderr = &stderr
	out, err := x.Output()
	if err != nil {
		return out, fmt.Errorf("git %v: %v: %s", args, err, stderr.String())
	}
	return out, nil
}

func (g execGit) ConfigGetRegexp(ctx context.Context, pattern string) ([]gitstore.ConfigEntry, error) {
	x := exec.CommandContext(ctx, "git", "config", "-z", "--get-regexp", pattern)
	x.Dir = g.s.WorkTree
	out, err := x.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		return nil, nil // none
	}
	if err != nil {
		return nil, err
	}
	var es []gitstore.ConfigEntry
	for _, rec := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if rec == "" {
			continue
		}
		k, v, _ := strings.Cut(rec, "\n")
		es = append(es, gitstore.ConfigEntry{Key: k, Value: v})
	}
	return es, nil
}

func (g execGit) UpdateIndexEntries(ctx context.Context, ix gitstore.Index, entries []gitstore.IndexEntry) error {
	var in strings.Builder
	for _, e := range entries {
		if gitstore.AbsentMode(e.Mode) {
			fmt.Fprintf(&in, "0 %s\t%s\x00", strings.Repeat("0", len(g.s.ZeroID())), e.Path)
		} else {
			fmt.Fprintf(&in, "%s %s\t%s\x00", e.Mode, e.Blob, e.Path)
		}
	}
	var env []string
	if ix.Path != "" {
		env = []string{"GIT_INDEX_FILE=" + ix.Path}
	}
	_, err := g.run(ctx, strings.NewReader(in.String()), env, "update-index", "-z", "--index-info")
	return err
}

func (g execGit) HeadTree(ctx context.Context) (gitstore.Head, string, error) {
	out, err := g.run(ctx, nil, nil, "rev-parse", "--symbolic-full-name", "HEAD", "HEAD", "HEAD^{tree}")
	if err != nil {
		return gitstore.Head{}, "", err
	}
	f := strings.Fields(string(out))
	if len(f) != 3 {
		return gitstore.Head{}, "", fmt.Errorf("rev-parse said %q", out)
	}
	return gitstore.Head{Branch: f[0], Commit: f[1]}, f[2], nil
}

func (g execGit) HashFilesRaw(ctx context.Context, paths []string, write bool) ([]string, error) {
	args := []string{"hash-object", "--no-filters", "--stdin-paths"}
	if write {
		args = append(args, "-w")
	}
	out, err := g.run(ctx, strings.NewReader(strings.Join(paths, "\n")+"\n"), nil, args...)
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

func (g execGit) StartProc(ctx context.Context, args ...string) (gitstore.Proc, error) {
	x := exec.CommandContext(ctx, "git", args...)
	x.Dir = g.s.WorkTree
	p := &execProc{x: x}
	x.Stderr = &p.stderr
	var err error
	if p.in, err = x.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := x.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p.out = bufio.NewReader(out)
	return p, x.Start()
}

type execProc struct {
	x      *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
}

func (p *execProc) Stdin() io.Writer      { return p.in }
func (p *execProc) Stdout() *bufio.Reader { return p.out }
func (p *execProc) Close() error {
	p.in.Close()
	_, _ = io.Copy(io.Discard, p.out)
	return p.x.Wait()
}
func (p *execProc) Fail(err error) error {
	p.in.Close()
	if werr := p.x.Wait(); werr != nil {
		return fmt.Errorf("%v: %s", werr, p.stderr.String())
	}
	return err
}
func (p *execProc) Kill() { _ = p.x.Process.Kill() }
