package nudge

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nudgethis/git-nudge/internal/proc"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// overSSH is onRunner for an ssh runner. Before the command: the cache
// repository on the host is made when missing (git init --bare) and the
// task's base is pushed into it (git push sends only the objects it
// lacks). The command is ssh running a script there that adds a worktree
// of the cache on the base, runs the task's command in it, commits what
// it left and bundles that commit. git and sh are all the host needs.
// While the command runs, the host's script watches its stdin: when the
// connection goes (Ctrl-C, a lost network), the command's process group
// is ended. finish fetches the bundle over ssh and imports it as a
// command runner's (importRunnerResult), then removes the worktree there.
func (w *Workspace) overSSH(ctx context.Context, p *runnerPlan, t *Task, c child, log io.Writer) (child, func(int) error, error) {
	dir := w.runnerDir(t.ID)
	if err := os.RemoveAll(dir); err != nil {
		return c, nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return c, nil, err
	}
	base, baseRef := t.Snapshot, refs.Task.Ref(t.ID)
	if t.Setup != nil {
		base, baseRef = *t.Setup, refs.Setups+t.ID
	}
	cache := strings.TrimSuffix(p.path, "/") + "/cache.git"
	qcache := ShellQuote([]string{cache})
	sshArgs := func(remote string) []string {
		return []string{"ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=30", "--", p.host, remote}
	}
	// The steps around the command are not cut short by an interrupt:
	// the cleanup must run, and ssh has its own timeouts.
	quiet := func(argv []string, stdout io.Writer) error {
		var errb bytes.Buffer
		if err := proc.Quick(context.WithoutCancel(ctx), argv, c.env, w.Repo.WorkTree, stdout, io.MultiWriter(log, &errb)); err != nil {
			return fmt.Errorf("%s: %v: %s", strings.Join(argv[:min(len(argv), 5)], " "), err, strings.TrimSpace(errb.String()))
		}
		return nil
	}
	fail := func(what string, err error) error {
		return fmt.Errorf("runner %s (ssh %s): %s: %w; check that ssh %s works without a password and that git is installed there", p.name, p.host, what, err, p.host)
	}
	work := "work/" + t.ID
	// One connection makes the cache, copies the review comments
	// (NUDGE_REVIEW) there and, for the sandbox, checks that bubblewrap
	// works on the host.
	prep := "mkdir -p " + qcache + "/work && cd " + qcache + " && { test -f HEAD || git init -q --bare .; } && rm -f " + work + ".review"
	review := envValue(c.env, ReviewEnv)
	var prepIn io.Reader
	if review != "" {
		f, err := os.Open(review)
		if err != nil {
			return c, nil, err
		}
		defer f.Close()
		prepIn = f
		prep += " && cat > " + work + ".review"
	}
	if p.sandbox {
		prep += " && { command -v bwrap >/dev/null 2>&1 && bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all --die-with-parent --new-session true >/dev/null 2>&1 && echo sandbox=bwrap || echo sandbox=none; }"
	}
	var prepOut bytes.Buffer
	var errb bytes.Buffer
	if err := proc.QuickIn(context.WithoutCancel(ctx), sshArgs(prep), c.env, w.Repo.WorkTree, prepIn, &prepOut, io.MultiWriter(log, &errb)); err != nil {
		return c, nil, fail("making the cache repository", fmt.Errorf("%v: %s", err, strings.TrimSpace(errb.String())))
	}
	if p.sandbox && !strings.Contains(prepOut.String(), "sandbox=bwrap") {
		return c, nil, fmt.Errorf("runner %s: the sandbox was asked for (--sandbox or git config nudge.sandbox) but bubblewrap (bwrap) does not run on %s, so the command was not run there unconfined; install bubblewrap on the host (and allow unprivileged user namespaces), or run with --no-sandbox only if you trust the command with that account", p.name, p.host)
	}
	remoteBase := "refs/nudge/base/" + t.ID
	if err := quiet([]string{"git", "push", "-q", "--no-verify", p.host + ":" + cache, "+" + baseRef + ":" + remoteBase}, io.Discard); err != nil {
		return c, nil, fail("sending the snapshot", err)
	}
	rel, err := filepath.Rel(*t.Worktree, c.dir)
	if err != nil || !filepath.IsLocal(rel) {
		rel = "."
	}
	result := "refs/nudge/results/" + t.ID
	var env []string
	for _, k := range []string{"NUDGE_TASK", "NUDGE_ATTEMPT"} {
		if v := envValue(c.env, k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	env = append(env, "NUDGE_RUNNER="+p.name)
	run := ShellQuote(env)
	if review != "" {
		run += ` NUDGE_REVIEW="$w.review"`
	}
	run += " " + ShellQuote(c.argv)
	if p.sandbox {
		// Everything read-only but the worktree, its own /tmp, /dev and
		// /proc, no network unless nudge.sandbox.network is host; the
		// command ends with bubblewrap.
		net := "--unshare-all"
		if p.sandboxNet {
			net = "--unshare-all --share-net"
		}
		run = `bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --bind "$w" "$w" ` + net + ` --die-with-parent --new-session --chdir "$PWD" -- env ` + run
	} else {
		run = "env " + run
	}
	script := strings.Join([]string{
		"set -u",
		"exec 3<&0",
		"cd " + qcache + " || exit 125",
		"w=\"$PWD/" + work + "\"",
		"rm -rf \"$w\" \"$w.bundle\" \"$w.done\" \"$w.lost\" \"$w.pid\"; git worktree prune",
		"git worktree add -q --detach \"$w\" " + base + " >&2 || exit 125",
		"cd \"$w\"/" + ShellQuote([]string{filepath.ToSlash(rel)}) + " || exit 125",
		// A session of its own (setsid, where there is one) so that a
		// lost connection ends all the command started.
		"s=; command -v setsid >/dev/null 2>&1 && s=setsid",
		"$s " + run + " </dev/null 3<&- &",
		"pid=$!; echo $pid > \"$w.pid\"",
		// The connection is ssh's stdin, kept as 3 (a background job's
		// stdin would be /dev/null).
		"{ cat >/dev/null; test -e \"$w.done\" || { touch \"$w.lost\"; kill -TERM -$pid 2>/dev/null || kill -TERM $pid; sleep 5; kill -KILL -$pid 2>/dev/null; }; } <&3 3<&- &",
		"watch=$!",
		"wait $pid; code=$?",
		"touch \"$w.done\"; kill $watch 2>/dev/null",
		"cd \"$w\" && git add -A && git -c user.name=git-nudge -c user.email=git-nudge@localhost commit -q --allow-empty --no-verify -m result" +
			" && git update-ref " + result + " HEAD && git bundle create -q \"$w.bundle\" " + result + " ^" + base + " 2>/dev/null || exit 125",
		"exit $code",
	}, "\n")
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return c, nil, err
	}
	c.argv = sshArgs("sh -c " + ShellQuote([]string{script}))
	c.path = ""
	c.stdin = stdinR
	out := filepath.Join(dir, "out.bundle")
	finish := func(code int) error {
		stdinR.Close()
		stdinW.Close()
		defer os.RemoveAll(dir)
		defer func() {
			// A command still running there (the connection went before
			// the far side noticed) is killed with its session first.
			_ = quiet(sshArgs("cd "+qcache+" && { test -e "+work+".done || ! test -e "+work+".pid || { p=$(cat "+work+".pid); kill -KILL -$p 2>/dev/null || kill -KILL $p 2>/dev/null; }; }; rm -rf "+work+" "+work+".bundle "+work+".done "+work+".lost "+work+".pid "+work+".review && git worktree prune && git update-ref -d "+result), io.Discard)
		}()
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		err = quiet(sshArgs("cd "+qcache+" && if test -e "+work+".lost; then echo 'the connection was lost while the command ran' >&2; exit 3; fi && cat "+work+".bundle"), f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			if code == 255 {
				return fmt.Errorf("runner %s: the connection to %s was lost (ssh exited with status 255) and the result could not be fetched; nothing was imported: %v", p.name, p.host, err)
			}
			return fmt.Errorf("runner %s: fetching the result from %s failed (the command exited with status %d); nothing was imported: %v", p.name, p.host, code, err)
		}
		if err := w.importRunnerResult(context.WithoutCancel(ctx), t, out, result); err != nil {
			return fmt.Errorf("runner %s: the result bundle was refused, nothing was imported: %w", p.name, err)
		}
		return nil
	}
	return c, finish, nil
}
