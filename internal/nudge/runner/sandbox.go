package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/proc"
)

// sandboxPlan is how a sandboxed command is confined and what it may
// write beyond its worktree: decided (and checked) before anything else
// of the run happens.
type sandboxPlan struct {
	engine   proc.Engine
	bwrap    string   // bubblewrap's path (engine bwrap)
	abi      int      // Landlock ABI (engine landlock)
	fallback string   // why bubblewrap is not used (engine landlock)
	network  bool     // nudge.sandbox.network=host
	maxProcs int      // nudge.sandbox.maxProcs
	extra    []string // git config nudge.sandbox.allowWrite, absolute
}

// sandboxWanted is whether a command runs confined: want (the --sandbox
// flag) when given, else git config nudge.sandbox (true or strict).
func (w workspace) sandboxWanted(ctx context.Context, want *bool) (bool, error) {
	if want != nil {
		return *want, nil
	}
	raw, _, err := w.Repo.ConfigGet(ctx, "nudge.sandbox")
	if err != nil {
		return false, err
	}
	if strings.EqualFold(strings.TrimSpace(raw), "strict") {
		return true, nil
	}
	v, err := w.Repo.ConfigBool(ctx, "nudge.sandbox", false)
	if err != nil {
		return false, fmt.Errorf("%w (git config nudge.sandbox takes true, false or strict)", err)
	}
	return v, nil
}

// planSandbox decides whether the command runs confined (want: the
// --sandbox flag, nil for git config nudge.sandbox) and, if so, how:
// under bubblewrap, or where it cannot run, under Landlock unless
// nudge.sandbox is strict. Never a silent run without it.
func (w workspace) planSandbox(ctx context.Context, want *bool, environ []string) (*sandboxPlan, error) {
	on, err := w.sandboxWanted(ctx, want)
	if err != nil || !on {
		return nil, err
	}
	raw, _, err := w.Repo.ConfigGet(ctx, "nudge.sandbox")
	if err != nil {
		return nil, err
	}
	strict := strings.EqualFold(strings.TrimSpace(raw), "strict")
	refuse := func(reasons ...string) error {
		return &nudge.RefusedError{What: "cannot run the command in the sandbox", Reasons: reasons,
			Next: "Nothing was run. Run it without the sandbox (git nudge run --no-sandbox, or git config nudge.sandbox false) only if you trust it with the workspace."}
	}
	p := &sandboxPlan{engine: proc.EngineBwrap}
	switch net, _, err := w.Repo.ConfigGet(ctx, "nudge.sandbox.network"); {
	case err != nil:
		return nil, err
	case net == "" || net == "none":
	case net == "host":
		p.network = true
	default:
		return nil, refuse(fmt.Sprintf("git config nudge.sandbox.network %q is neither none (the default) nor host", net))
	}
	n, err := w.Repo.ConfigInt(ctx, "nudge.sandbox.maxProcs", 1024)
	if err != nil {
		return nil, err
	}
	if n <= 0 || n > 1<<22 {
		return nil, refuse(fmt.Sprintf("git config nudge.sandbox.maxProcs %d is not a number of processes from 1 to %d", n, 1<<22))
	}
	p.maxProcs = int(n)
	paths, err := w.Repo.ConfigGetAll(ctx, "nudge.sandbox.allowWrite")
	if err != nil {
		return nil, err
	}
	home := envValue(environ, "HOME")
	for _, raw := range paths {
		path := raw
		if rest, ok := strings.CutPrefix(path, "~/"); ok && home != "" {
			path = filepath.Join(home, rest)
		}
		if !filepath.IsAbs(path) {
			return nil, refuse(fmt.Sprintf("git config nudge.sandbox.allowWrite %q is not an absolute path (or ~/...)", raw))
		}
		if _, err := os.Stat(path); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, refuse(fmt.Sprintf("git config nudge.sandbox.allowWrite %q does not exist; create it first (the sandbox can only open up what exists)", raw))
			}
			return nil, refuse(fmt.Sprintf("git config nudge.sandbox.allowWrite %q: %v", raw, err))
		}
		p.extra = append(p.extra, filepath.Clean(path))
	}
	if p.bwrap, err = proc.BwrapProbe(); err != nil {
		if strict {
			return nil, refuse(err.Error(), "git config nudge.sandbox is strict, so the Landlock fallback (which confines less; see docs/SECURITY.md) is not used")
		}
		abi, lerr := proc.SandboxABI()
		if lerr != nil {
			return nil, refuse(lerr.Error(), err.Error())
		}
		p.engine, p.abi, p.fallback = proc.EngineLandlock, abi, err.Error()
	}
	return p, nil
}

// sandboxed turns c, a command of task id in worktree, into the sandbox
// helper running it: c may then write only in the worktree, its git
// folder (.git/worktrees/<name>: HEAD, index, logs), a private object
// directory, a private TMPDIR, /dev/null and the terminals, and the
// nudge.sandbox.allowWrite paths. done, to be called once the command
// has ended, removes the TMPDIR and puts back the git folder's files that
// git reads as configuration (see adminGuard), returning their names.
//
// The repository's object store stays read-only: git run by the command
// reads it as an alternate (GIT_ALTERNATE_OBJECT_DIRECTORIES) and writes
// new objects into .nudgethis/sandbox/<id>/objects (GIT_OBJECT_DIRECTORY),
// which capturing the task imports (importSandboxObjects).
func (w workspace) sandboxed(ctx context.Context, p *sandboxPlan, id, worktree string, c child) (_ child, done func() []string, _ error) {
	wt, err := w.Repo.OpenWorktree(ctx, worktree)
	if err != nil {
		return c, nil, err
	}
	admin := filepath.Join(w.Repo.CommonDir, "worktrees")
	if rel, err := filepath.Rel(admin, wt.GitDir); err != nil || rel == "." || strings.HasPrefix(rel, "..") || strings.ContainsRune(rel, filepath.Separator) {
		return c, nil, fmt.Errorf("the task's worktree has its git folder at %s, not in %s; not running it in the sandbox", wt.GitDir, admin)
	}
	guard, err := guardAdmin(wt.GitDir, worktree)
	if err != nil {
		return c, nil, err
	}
	objects := w.SandboxObjects(id)
	if err := os.MkdirAll(objects, 0o755); err != nil {
		return c, nil, err
	}
	tmp, err := os.MkdirTemp("", "git-nudge-sandbox-")
	if err != nil {
		return c, nil, err
	}
	done = func() []string {
		_ = os.RemoveAll(tmp)
		return guard.restore()
	}
	env := sandboxEnv(c.env, tmp, objects, filepath.Join(w.Repo.CommonDir, "objects"))
	if p.engine == proc.EngineBwrap {
		c, err = w.inBwrap(p, c, env, []string{worktree, wt.GitDir, objects, tmp}, tmp)
		if err != nil {
			done()
			return c, nil, err
		}
		return c, done, nil
	}
	c.env = env
	writable := []string{worktree, wt.GitDir, objects, tmp}
	for _, dev := range []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts"} {
		if _, err := os.Stat(dev); err == nil {
			writable = append(writable, dev)
		}
	}
	writable = append(writable, p.extra...)
	c.argv = proc.SandboxArgv("git-nudge", writable, c.argv)
	c.path = proc.SelfExe
	return c, done, nil
}

// adminFiles are the files of a worktree's git folder that git reads as
// configuration or as the way to the repository, rather than as state:
// a sandboxed command may write that folder (its HEAD and index live
// there) but must not leave these changed for the unconfined git
// commands that capture its result (config.worktree can name filter
// drivers when extensions.worktreeConfig is on). The worktree's own .git
// file, which names that folder, is guarded the same way.
var adminFiles = []string{"config.worktree", "commondir", "gitdir"}

// adminGuard holds the guarded files' contents (nil: absent) before a run.
type adminGuard struct {
	paths []string
	files map[string][]byte
}

func guardAdmin(gitDir, worktree string) (*adminGuard, error) {
	g := &adminGuard{files: map[string][]byte{}}
	for _, name := range adminFiles {
		g.paths = append(g.paths, filepath.Join(gitDir, name))
	}
	g.paths = append(g.paths, filepath.Join(worktree, ".git"))
	for _, path := range g.paths {
		b, err := os.ReadFile(path)
		switch {
		case err == nil:
			g.files[path] = b
		case errors.Is(err, fs.ErrNotExist):
			g.files[path] = nil
		default:
			return nil, err
		}
	}
	return g, nil
}

// restore puts back each file that changed (removing what was added; a
// symlink or folder put in its place is removed, never followed) and
// returns the names of those it put back, or could not.
func (g *adminGuard) restore() []string {
	var changed []string
	for _, path := range g.paths {
		was := g.files[path]
		st, err := os.Lstat(path)
		if err != nil && was == nil {
			continue
		}
		if err == nil && was != nil && st.Mode().IsRegular() {
			if b, err := os.ReadFile(path); err == nil && string(b) == string(was) {
				continue
			}
		}
		changed = append(changed, filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path))
		if err := os.RemoveAll(path); err != nil {
			continue
		}
		if was != nil {
			if f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
				_, _ = f.Write(was)
				_ = f.Close()
			}
		}
	}
	return changed
}

// sandboxEnv is env for a sandboxed command: its TMPDIR the private
// one, new objects written to the private object folder, the
// repository's read as an alternate, and NUDGE_SANDBOX=1.
func sandboxEnv(base []string, tmp, objects, alternate string) []string {
	var env []string
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "TMPDIR", "TMP", "TEMP", "NUDGE_SANDBOX", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "TMPDIR="+tmp, "TMP="+tmp, "TEMP="+tmp, "NUDGE_SANDBOX=1",
		"GIT_OBJECT_DIRECTORY="+objects, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+alternate)
}

// envValue is key's value in environ ("" when absent).
func envValue(environ []string, key string) string {
	for i := len(environ) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(environ[i], key+"="); ok {
			return v
		}
	}
	return ""
}
