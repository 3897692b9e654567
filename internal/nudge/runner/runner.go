package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/proc"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/shquote"
)

// Runner kinds (git config nudge.runner.<name>.type).
const (
	RunnerContainer = "container"
	RunnerSSH       = "ssh"
	RunnerCommand   = "command"
)

// runnerPlan is a runner as git config describes it, checked before
// anything of the run happens (docs/RUNNERS.md).
type runnerPlan struct {
	name    string
	kind    string
	engine  string // container: podman or docker
	image   string
	network string // container: none (default) or a network the engine knows
	cpus    string
	memory  string
	procs   int
	host    string
	path    string
	command string // command: the shell command that is the runner
	// sandbox: ssh runs the command under bubblewrap on the far side
	// (--sandbox, or git config nudge.sandbox), sandboxNet keeping the
	// network there (nudge.sandbox.network host).
	sandbox    bool
	sandboxNet bool
	// note is printed with describe (a sandbox asked for on a container).
	note string
	// fresh: the task's worktree was made by this run, so it holds the
	// commit the runner starts from (nothing to put back when the
	// runner's result is that commit's tree).
	fresh bool
	// remote: a container runner's engine is elsewhere (the variable
	// that says so, as VAR=VALUE).
	remote string
}

var runnerName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// runnerRefusal is a runner that cannot be used, with what to set.
func runnerRefusal(name string, reason, next string) error {
	what := "cannot run on " + name
	if name == "" {
		what = "cannot run on a runner"
	}
	return &nudge.RefusedError{What: what, Reasons: []string{reason}, Next: "Nothing was run. " + next}
}

// RunnerName is the runner a task runs on: on when given, else git
// config nudge.runner ("" both: on this machine, as always).
func RunnerName(ctx context.Context, ws *nudge.Workspace, on string) (string, error) {
	w := workspace{ws}
	if on != "" {
		return on, nil
	}
	v, _, err := w.Repo.ConfigGet(ctx, "nudge.runner")
	return strings.TrimSpace(v), err
}

// CheckRunner checks that runner name is configured well enough to run
// on (queue checks it when a task is queued, run before it starts).
func CheckRunner(ctx context.Context, ws *nudge.Workspace, name string) error {
	w := workspace{ws}
	_, err := w.planRunner(ctx, name)
	return err
}

// planRunner reads runner name from git config; "" or "local" is this
// machine (nil plan).
func (w workspace) planRunner(ctx context.Context, name string) (*runnerPlan, error) {
	if name == "" || name == "local" {
		return nil, nil
	}
	if !runnerName.MatchString(name) {
		return nil, runnerRefusal(name, fmt.Sprintf("%q is not a runner name (letters, digits, - and _)", name),
			"Name a runner configured with git config nudge.runner.NAME.type.")
	}
	key := func(k string) string { return "nudge.runner." + name + "." + k }
	// The runner's keys in one git config call: the last value of each
	// wins, as git config --get has it.
	entries, err := w.Repo.ConfigGetRegexp(ctx, `^nudge\.runner\.`+name+`\.`)
	if err != nil {
		return nil, err
	}
	vals := map[string]string{}
	for _, e := range entries {
		vals[strings.ToLower(strings.TrimPrefix(e.Key, "nudge.runner."+name+"."))] = strings.TrimSpace(e.Value)
	}
	p := &runnerPlan{name: name}
	p.kind = vals["type"]
	for _, f := range []struct {
		k string
		v *string
	}{{"engine", &p.engine}, {"image", &p.image}, {"network", &p.network}, {"cpus", &p.cpus}, {"memory", &p.memory}, {"host", &p.host}, {"path", &p.path}, {"command", &p.command}} {
		*f.v = vals[f.k]
	}
	switch p.kind {
	case "":
		return nil, runnerRefusal(name, fmt.Sprintf("no runner %s is configured (git config %s is not set)", name, key("type")),
			fmt.Sprintf("Configure it: git config %s container (or ssh, or command), then the keys that type needs (see docs/RUNNERS.md).", key("type")))
	case RunnerCommand:
		if p.command == "" {
			return nil, runnerRefusal(name, fmt.Sprintf("runner %s is a command runner but git config %s is not set", name, key("command")),
				fmt.Sprintf("Set it to the shell command that runs a task (the protocol is in docs/RUNNERS.md): git config %s 'CMD'", key("command")))
		}
	case RunnerContainer:
		if p.image == "" {
			return nil, runnerRefusal(name, fmt.Sprintf("runner %s is a container runner but git config %s is not set", name, key("image")),
				fmt.Sprintf("Set the image its tasks run in: git config %s IMAGE", key("image")))
		}
		switch p.engine {
		case "":
			for _, e := range []string{"podman", "docker"} {
				if _, err := proc.LookPath(e); err == nil {
					p.engine = e
					break
				}
			}
			if p.engine == "" {
				return nil, runnerRefusal(name, "neither podman nor docker is installed",
					fmt.Sprintf("Install Podman or Docker, or name the engine's program: git config %s podman", key("engine")))
			}
		case "podman", "docker":
			if _, err := proc.LookPath(p.engine); err != nil {
				return nil, runnerRefusal(name, fmt.Sprintf("git config %s is %s, which is not installed (not found in PATH)", key("engine"), p.engine),
					fmt.Sprintf("Install %s, or set git config %s to the engine you have (podman or docker).", p.engine, key("engine")))
			}
		default:
			return nil, runnerRefusal(name, fmt.Sprintf("git config %s %q is neither podman nor docker", key("engine"), p.engine),
				fmt.Sprintf("Set git config %s podman (or docker).", key("engine")))
		}
		if p.network == "" {
			p.network = "none"
		}
		if p.cpus != "" {
			if f, err := strconv.ParseFloat(p.cpus, 64); err != nil || f <= 0 {
				return nil, runnerRefusal(name, fmt.Sprintf("git config %s %q is not a positive number of CPUs", key("cpus"), p.cpus),
					fmt.Sprintf("Set it to a number such as 2 or 0.5: git config %s 2", key("cpus")))
			}
		}
		if p.memory != "" && !regexp.MustCompile(`^[0-9]+[bkmgBKMG]?$`).MatchString(p.memory) {
			return nil, runnerRefusal(name, fmt.Sprintf("git config %s %q is not an amount of memory", key("memory"), p.memory),
				fmt.Sprintf("Set it to a size such as 512m or 2g: git config %s 2g", key("memory")))
		}
		n, err := w.Repo.ConfigInt(ctx, "nudge.sandbox.maxProcs", 1024)
		if err != nil {
			return nil, err
		}
		p.procs = int(n)
	case RunnerSSH:
		if p.host == "" {
			return nil, runnerRefusal(name, fmt.Sprintf("runner %s is an ssh runner but git config %s is not set", name, key("host")),
				fmt.Sprintf("Set the host as ssh takes it (user@host, or an alias of ~/.ssh/config): git config %s HOST", key("host")))
		}
		if strings.HasPrefix(p.host, "-") || strings.ContainsAny(p.host, " \t\n'\"\\;|&$`") {
			return nil, runnerRefusal(name, fmt.Sprintf("git config %s %q is not an ssh destination", key("host"), p.host),
				"Name a host as ssh takes it: user@host or an alias of ~/.ssh/config.")
		}
		if p.path == "" {
			p.path = ".cache/git-nudge"
		}
		if strings.ContainsAny(p.path, "\n:") || strings.HasPrefix(p.path, "-") {
			return nil, runnerRefusal(name, fmt.Sprintf("git config %s %q is not a folder name git and ssh can both use", key("path"), p.path),
				fmt.Sprintf("Set a folder on the host without ':' (relative to its home, or absolute): git config %s .cache/git-nudge", key("path")))
		}
		if _, err := proc.LookPath("ssh"); err != nil {
			return nil, runnerRefusal(name, "ssh is not installed (not found in PATH)", "Install the OpenSSH client.")
		}
	default:
		return nil, runnerRefusal(name, fmt.Sprintf("git config %s %q is not a runner type", key("type"), p.kind),
			fmt.Sprintf("Set it to container, ssh or command: git config %s container", key("type")))
	}
	return p, nil
}

// onRunner turns c, the task's command ready to run here, into the
// runner's: for a container runner the engine's client running it in
// the image with the worktree mounted at the same path; for a command
// runner the configured shell command, with the protocol's environment
// (docs/RUNNERS.md). finish, called once it has ended, brings the result
// back into the worktree (a command runner's bundle) or removes what the
// engine may have left (a container that outlived its client); its error
// fails the task, with the worktree as the snapshot left it.
func (w workspace) onRunner(ctx context.Context, p *runnerPlan, t *nudge.Task, c child, log io.Writer) (child, func(code int) (int, error), error) {
	switch p.kind {
	case RunnerContainer:
		if remoteEngine(p.engine, c.env) != "" {
			return w.inRemoteContainer(ctx, p, t, c, log)
		}
		return w.inContainer(ctx, p, t, c)
	case RunnerCommand:
		return w.viaCommand(ctx, p, t, c, log)
	case RunnerSSH:
		return w.overSSH(ctx, p, t, c, log)
	}
	return c, nil, fmt.Errorf("runner %s: type %s cannot run tasks", p.name, p.kind)
}

// viaCommand is onRunner for a command runner.
func (w workspace) viaCommand(ctx context.Context, p *runnerPlan, t *nudge.Task, c child, log io.Writer) (child, func(int) (int, error), error) {
	dir := w.RunnerDir(t.ID)
	if err := os.RemoveAll(dir); err != nil {
		return c, nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return c, nil, err
	}
	base, baseRef := w.runnerStart(ctx, t)
	in := filepath.Join(dir, "in.bundle")
	if err := w.Repo.CreateBundle(ctx, in, baseRef); err != nil {
		return c, nil, fmt.Errorf("runner %s: writing the snapshot bundle: %w", p.name, err)
	}
	line := shquote.Line(c.argv)
	cmdFile := filepath.Join(dir, "command.sh")
	if err := os.WriteFile(cmdFile, []byte(line+"\n"), 0o600); err != nil {
		return c, nil, err
	}
	rel, err := filepath.Rel(*t.Worktree, c.dir)
	if err != nil || !filepath.IsLocal(rel) {
		rel = "."
	}
	out := filepath.Join(dir, "out.bundle")
	env := c.env
	if review := envValue(c.env, ReviewEnv); review != "" {
		// The comments go with the bundle: a copy in the runner's folder,
		// for it to send wherever the command runs.
		b, err := os.ReadFile(review)
		if err != nil {
			return c, nil, err
		}
		copied := filepath.Join(dir, "review.md")
		if err := os.WriteFile(copied, b, 0o600); err != nil {
			return c, nil, err
		}
		env = append(withoutEnv(env, ReviewEnv), ReviewEnv+"="+copied)
	}
	env = append(env,
		"NUDGE_RUNNER="+p.name,
		"NUDGE_BUNDLE_IN="+in,
		"NUDGE_SNAPSHOT="+base,
		"NUDGE_SNAPSHOT_REF="+baseRef,
		"NUDGE_COMMAND="+line,
		"NUDGE_COMMAND_FILE="+cmdFile,
		"NUDGE_DIR="+filepath.ToSlash(rel),
		"NUDGE_BUNDLE_OUT="+out,
		"NUDGE_RESULT_REF="+RunnerResultRef,
	)
	c.argv = []string{"/bin/sh", "-c", p.command}
	c.path = ""
	c.env = env
	c.dir = dir
	finish := func(code int) (int, error) {
		defer os.RemoveAll(dir)
		if _, err := os.Lstat(out); err != nil {
			if code == 0 {
				return code, fmt.Errorf("runner %s ended without writing the result bundle ($NUDGE_BUNDLE_OUT); nothing was imported. Check its command (git config nudge.runner.%s.command) against docs/RUNNERS.md", p.name, p.name)
			}
			return code, fmt.Errorf("runner %s exited with status %d and wrote no result bundle (a lost connection, or the runner failed before the command ended); nothing was imported, see the run log", p.name, code)
		}
		if err := w.importRunnerResult(context.WithoutCancel(ctx), t, out, RunnerResultRef); err != nil {
			return code, fmt.Errorf("runner %s: the result bundle was refused, nothing was imported: %w", p.name, err)
		}
		return code, nil
	}
	return c, finish, nil
}

// RunnerResultRef is the ref a command runner's result bundle holds the
// result commit on.
const RunnerResultRef = "refs/nudge/result"

// importRunnerResult brings the result commit of the bundle at path into
// the store (checked by git as it is imported) and makes t's worktree
// hold its tree, for the capture that follows to check and record like
// any worktree (protected paths, sizes, the snapshot's rules). On an
// error the worktree is put back to the task's base.
func (w workspace) importRunnerResult(ctx context.Context, t *nudge.Task, path, ref string) error {
	commit, err := w.Repo.ImportBundle(ctx, path, ref)
	if err != nil {
		return err
	}
	tree, err := w.Repo.TreeOf(ctx, commit)
	if err != nil {
		return err
	}
	return w.resetToRunnerResult(ctx, t, tree)
}

// resetToRunnerResult makes t's worktree hold tree, a runner's result,
// with its index (and HEAD) at the task's base; on an error the worktree
// is put back to the base.
func (w workspace) resetToRunnerResult(ctx context.Context, t *nudge.Task, tree string) error {
	wr, err := w.Repo.OpenWorktree(ctx, *t.Worktree)
	if err != nil {
		return err
	}
	if err := wr.ResetWorktreeTo(ctx, tree); err != nil {
		if rerr := wr.ResetWorktreeTo(ctx, t.Base()); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return fmt.Errorf("checking out the result in the worktree: %w", err)
	}
	// The worktree's HEAD stays at the base: git nudge diff and capture
	// see the result as its changes.
	return wr.ResetIndexTo(ctx, t.Base())
}

// inContainer is onRunner for a container runner.
func (w workspace) inContainer(ctx context.Context, p *runnerPlan, t *nudge.Task, c child) (child, func(int) (int, error), error) {
	wt := *t.Worktree
	name := "nudge-" + t.ID + "-" + strconv.Itoa(os.Getpid())
	args := []string{p.engine, "run", "--rm", "--init", "--name", name,
		"--network", p.network,
		"--pids-limit", strconv.Itoa(p.procs),
		"--volume", wt + ":" + wt,
		"--workdir", c.dir,
		"--env", "NUDGE_TASK=" + t.ID,
		"--env", "NUDGE_WORKSPACE=" + w.Repo.WorkTree,
		"--env", "NUDGE_RUNNER=" + p.name,
	}
	if v := envValue(c.env, "NUDGE_ATTEMPT"); v != "" {
		args = append(args, "--env", "NUDGE_ATTEMPT="+v)
	}
	if v := envValue(c.env, ReviewEnv); v != "" {
		// The review comments, read-only at the same path.
		args = append(args, "--volume", v+":"+v+":ro", "--env", ReviewEnv+"="+v)
	}
	if p.cpus != "" {
		args = append(args, "--cpus", p.cpus)
	}
	if p.memory != "" {
		args = append(args, "--memory", p.memory)
	}
	if p.engine == "podman" && os.Geteuid() != 0 {
		args = append(args, "--userns=keep-id")
	} else {
		args = append(args, "--user", fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid()))
	}
	if c.stdin != nil {
		args = append(args, "--interactive")
	}
	args = append(args, p.image)
	c.argv = append(args, c.argv...)
	c.path = ""
	engine := func(args ...string) error {
		return proc.Quick(context.WithoutCancel(ctx), append([]string{p.engine}, args...), c.env, "", nil, nil)
	}
	// An interrupt or termination stops the container itself (the
	// engine's client passes it on too, but a client that dies first
	// would leave the container running): TERM, then KILL 10 s later.
	stop := c.stopOnSignal(func() { _ = engine("stop", "--time", "10", name) })
	finish := func(code int) (int, error) {
		stop()
		// A client killed before its container ended leaves it running:
		// removed here, whatever happened. An engine still cleaning up
		// after the container's end may refuse the removal for a moment:
		// tried again until the container is gone (for 20 s at most).
		for i := 0; i < 80; i++ {
			_ = engine("rm", "--force", name)
			if engine("container", "inspect", name) != nil {
				break
			}
			time.Sleep(250 * time.Millisecond)
		}
		if code == engineFailed {
			return code, engineError(p)
		}
		return code, nil
	}
	return c, finish, nil
}

// engineFailed is the exit status podman run and docker run give when
// the engine itself failed (no such image, no registry, a broken
// engine), as well as when the command in the container exits with it.
const engineFailed = 125

// EngineError is the error of a container run whose engine client
// exited with engineFailed: it names the runner and what to check. The
// run keeps that status as the command's.
type EngineError struct{ msg string }

func (e *EngineError) Error() string { return e.msg }

// engineError is the EngineError of a run on p.
func engineError(p *runnerPlan) error {
	return &EngineError{fmt.Sprintf("runner %s: %s exited with status %d, its own failure (unless the command itself exited so): the engine's message is in the run log; check that %s run --rm %s true works here (git config nudge.runner.%s.image names the image)",
		p.name, p.engine, engineFailed, p.engine, p.image, p.name)}
}

// describe is the line printed before a task runs on p.
func (p *runnerPlan) describe() string {
	switch p.kind {
	case RunnerContainer:
		lim := fmt.Sprintf("at most %d processes", p.procs)
		if p.cpus != "" {
			lim += ", " + p.cpus + " CPUs"
		}
		if p.memory != "" {
			lim += ", " + p.memory + " of memory"
		}
		if p.remote != "" {
			return fmt.Sprintf("runner %s: %s container of image %s on a remote engine (%s), network %s, %s; the snapshot goes in as a tar of its tree, the result comes back the same way, checked before it is captured", p.name, p.engine, p.image, p.remote, p.network, lim)
		}
		return fmt.Sprintf("runner %s: %s container of image %s, network %s, %s; the worktree is mounted at the same path", p.name, p.engine, p.image, p.network, lim)
	case RunnerSSH:
		sb := ""
		if p.sandbox {
			sb = ", confined there by bubblewrap"
		}
		return fmt.Sprintf("runner %s: over ssh to %s, in a worktree of the cache repository %s/cache.git there%s; the result comes back as a bundle, checked before it is captured", p.name, p.host, p.path, sb)
	case RunnerCommand:
		return fmt.Sprintf("runner %s: the snapshot goes out as a bundle to git config nudge.runner.%s.command; its result comes back as a bundle, checked before it is captured", p.name, p.name)
	}
	return "runner " + p.name
}

// planRunnerSandbox is planSandbox for a run on runner p. A container
// runner is the isolation itself: the sandbox is not stacked on it (and
// describe says so when it was asked for). An ssh runner confines the
// command on the far side with bubblewrap when the sandbox is on there
// (p.sandbox; the run is refused when the host has none that works). A
// command runner's command is the user's own program, which git-nudge
// cannot confine, so asking for the sandbox there is refused.
func (w workspace) planRunnerSandbox(ctx context.Context, p *runnerPlan, want *bool, environ []string) (*sandboxPlan, error) {
	if p == nil {
		return w.planSandbox(ctx, want, environ)
	}
	switch p.kind {
	case RunnerCommand:
		if want != nil && *want {
			return nil, runnerRefusal(p.name, fmt.Sprintf("--sandbox cannot confine a command runner: runner %s decides where and how the command runs", p.name),
				"Run it without --sandbox (the runner's engine is its isolation), or on a container runner.")
		}
	case RunnerContainer:
		if want != nil && *want {
			p.note = fmt.Sprintf("--sandbox: runner %s is a container, which is already the isolation; the sandbox is not stacked on it", p.name)
		}
	case RunnerSSH:
		// The same decision as a local run's, carried out on the far side.
		on, err := w.sandboxWanted(ctx, want)
		if err != nil || !on {
			return nil, err
		}
		net, _, err := w.Repo.ConfigGet(ctx, "nudge.sandbox.network")
		if err != nil {
			return nil, err
		}
		p.sandbox, p.sandboxNet = true, strings.TrimSpace(net) == "host"
	}
	return nil, nil
}

// withoutEnv is env without the variable named k.
func withoutEnv(env []string, k string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); name != k {
			out = append(out, kv)
		}
	}
	return out
}

// runnerStart is the commit (and a ref on it) a runner starts t's command
// from: its last result when it has one (a task run again goes on from
// there, as its worktree here does), else its setup or snapshot.
func (w workspace) runnerStart(ctx context.Context, t *nudge.Task) (commit, ref string) {
	if t.Result != nil && *t.Result != "" {
		if got, ok, err := w.Repo.ReadRefFast(ctx, refs.Results+t.ID); err == nil && ok && got == *t.Result {
			return got, refs.Results + t.ID
		}
	}
	if t.Setup != nil {
		return *t.Setup, refs.Setups + t.ID
	}
	return t.Snapshot, refs.Task.Ref(t.ID)
}

// remoteEngineVar is the variable that points engine's client at another
// machine.
func remoteEngineVar(engine string) string {
	if engine == "docker" {
		return "DOCKER_HOST"
	}
	return "CONTAINER_HOST"
}

// remoteEngine is where env points engine's client when that is not this
// machine's socket ("" for a local engine).
func remoteEngine(engine string, env []string) string {
	v := envValue(env, remoteEngineVar(engine))
	if v == "" || strings.HasPrefix(v, "unix://") || strings.HasPrefix(v, "/") {
		return ""
	}
	return v
}

// stopOnSignal passes on the signals c would get, and on the first
// interrupt, termination or hangup also calls stopIt (in its own
// goroutine): a container is stopped by its engine, not by a signal to
// the client. The returned func ends the relay once c has ended.
func (c *child) stopOnSignal(stopIt func()) (done func()) {
	in := c.signals
	if in == nil {
		return func() {}
	}
	stop := make(chan struct{})
	out := make(chan os.Signal, 4)
	c.signals = out
	go func() {
		stopping := false
		for {
			select {
			case <-stop:
				return
			case s := <-in:
				select {
				case out <- s:
				default:
				}
				if !stopping && (s == syscall.SIGINT || s == syscall.SIGTERM || s == syscall.SIGHUP) {
					stopping = true
					go stopIt()
				}
			}
		}
	}()
	return func() { close(stop) }
}
