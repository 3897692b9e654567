package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/proc"
)

// inBwrap turns c into bubblewrap running the sandbox helper, which runs
// c's command (docs/SECURITY.md, the sandbox): the whole file system read-only, writable only
// the writable paths (the worktree, its git folder, the private object
// folder and TMPDIR) and nudge.sandbox.allowWrite; the workspace's state
// folder (every other task's worktree, the task records, the locks, the
// dashboard's token) hidden, with only this task's worktree and object
// folder seen again; /tmp and /run hidden too (the user's sockets);
// its own user, PID, IPC, UTS, cgroup and network namespaces.
func (w workspace) inBwrap(p *sandboxPlan, c child, env, writable []string, tmp string) (child, error) {
	real := func(path string) (string, error) {
		r, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", fmt.Errorf("the sandbox cannot open up %s: %w", path, err)
		}
		return r, nil
	}
	b := proc.Bwrap{Path: p.bwrap, Network: p.network, MaxProcs: p.maxProcs}
	state, err := real(w.Dir)
	if err != nil {
		return c, err
	}
	b.Hide = []string{state}
	var system []string // hidden folders of the system (not the state folder)
	for _, dir := range []string{"/tmp", "/run"} {
		if st, err := os.Lstat(dir); err == nil && st.IsDir() {
			system = append(system, dir)
		}
	}
	b.Hide = append(b.Hide, system...)
	for _, path := range append(append([]string{}, writable...), p.extra...) {
		r, err := real(path)
		if err != nil {
			return c, err
		}
		b.Writable = append(b.Writable, r)
	}
	// The review file (NUDGE_REVIEW) lives in the hidden state folder:
	// shown again, read-only.
	if rv := envValue(env, ReviewEnv); rv != "" {
		r, err := real(rv)
		if err != nil {
			return c, err
		}
		if proc.Under(r, state) {
			b.ReadOnly = append(b.ReadOnly, r)
		}
	}
	// What the command reads that a hidden system folder would cover: the
	// workspace and its git folder, HOME (git's own configuration), and
	// the PATH, when they live in /tmp.
	wanted := []string{w.Repo.WorkTree, w.Repo.CommonDir, envValue(env, "HOME")}
	wanted = append(wanted, filepath.SplitList(envValue(env, "PATH"))...)
	seen := map[string]bool{}
	for _, path := range wanted {
		if path == "" || !filepath.IsAbs(path) {
			continue
		}
		r, err := filepath.EvalSymlinks(path)
		if err != nil || seen[r] || proc.Under(r, state) {
			continue
		}
		for _, dir := range system {
			if proc.Under(r, dir) && r != dir {
				seen[r] = true
				b.ReadOnly = append(b.ReadOnly, r)
				break
			}
		}
	}
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return c, fmt.Errorf("finding git-nudge's own binary for the sandbox: %w", err)
	}
	b.Exe = exe
	if len(system) > 0 {
		b.ExeDest = filepath.Join(system[len(system)-1], "git-nudge-sandbox", "git-nudge")
	} else {
		b.ExeDest = filepath.Join(tmp, "git-nudge")
	}
	if c.dir != "" {
		if b.Dir, err = real(c.dir); err != nil {
			return c, err
		}
	}
	if c.lock != nil {
		b.CloseFD = 3 // the first of ExtraFiles
	}
	c.argv = b.Argv(c.argv)
	c.path = p.bwrap
	c.env = env
	return c, nil
}

// describe says how the command is confined, for the line printed
// before it runs.
func (p *sandboxPlan) describe() string {
	if p.engine == proc.EngineBwrap {
		net := "no network"
		if p.network {
			net = "the host's network (nudge.sandbox.network=host)"
		}
		return fmt.Sprintf("sandbox (bubblewrap): the command may write only in its worktree, its git folder, a private object folder, a private TMPDIR and %d nudge.sandbox.allowWrite path(s); it does not see the workspace's %s folder; %s; at most %d processes", len(p.extra), nudge.StateDirName, net, p.maxProcs)
	}
	return fmt.Sprintf("sandbox (Landlock ABI %d, the fallback): the command may write only in its worktree, its git folder, a private object folder, a private TMPDIR and %d nudge.sandbox.allowWrite path(s)", p.abi, len(p.extra))
}

// fallbackGaps is what the Landlock fallback leaves open that bubblewrap
// closes, printed each time it is used (and listed in docs/SECURITY.md).
func (p *sandboxPlan) fallbackGaps() string {
	if p.engine != proc.EngineLandlock {
		return ""
	}
	gaps := []string{
		"metadata outside the worktree (chmod, chown, utime, flock)",
		"the network, including servers on 127.0.0.1 such as the dashboard",
		"what the command can read: the workspace's " + nudge.StateDirName + " folder, other tasks' worktrees and the dashboard's token stay readable",
		"processes that leave its process group (setsid) outlive it",
		"no process limit (nudge.sandbox.maxProcs)",
	}
	return fmt.Sprintf("git nudge: the sandbox falls back to Landlock because %s; Landlock does not confine: %s. Install bubblewrap, or set git config nudge.sandbox strict to refuse instead.\n",
		p.fallback, strings.Join(gaps, "; "))
}
