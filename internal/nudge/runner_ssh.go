package nudge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/nudgethis/git-nudge/internal/proc"
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
	base, baseRef := w.runnerStart(ctx, t)
	cache := strings.TrimSuffix(p.path, "/") + "/cache.git"
	qcache := ShellQuote([]string{cache})
	opts := append([]string{"-o", "BatchMode=yes", "-o", "ConnectTimeout=30"}, sshShare()...)
	sshArgs := func(remote string) []string {
		return append(append([]string{"ssh"}, opts...), "--", p.host, remote)
	}
	gitEnv := c.env
	if envValue(c.env, "GIT_SSH_COMMAND") == "" && envValue(c.env, "GIT_SSH") == "" {
		// git push shares the connection too, unless the user said how
		// git reaches ssh hosts (core.sshCommand is still honoured: it
		// is read only when GIT_SSH_COMMAND is not set).
		if v, _, err := w.Repo.ConfigGet(ctx, "core.sshCommand"); err == nil && strings.TrimSpace(v) == "" {
			gitEnv = append(withoutEnv(c.env, "GIT_SSH_COMMAND"), "GIT_SSH_COMMAND=ssh "+ShellQuote(opts))
		}
	}
	// The steps around the command are not cut short by an interrupt:
	// the cleanup must run, and ssh has its own timeouts.
	quiet := func(argv []string, stdout io.Writer) error {
		var errb bytes.Buffer
		if err := proc.Quick(context.WithoutCancel(ctx), argv, gitEnv, w.Repo.WorkTree, stdout, io.MultiWriter(log, &errb)); err != nil {
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
	// The snapshot is sent only when the cache lacks its commit (a
	// second task on the same snapshot sends nothing, not even a push).
	remoteBase := "refs/nudge/base/" + t.ID
	prep += " && { ! git cat-file -e " + base + "^{commit} 2>/dev/null || { git update-ref " + remoteBase + " " + base + " && echo base=present; }; }"
	var prepOut bytes.Buffer
	var errb bytes.Buffer
	if err := proc.QuickIn(context.WithoutCancel(ctx), sshArgs(prep), c.env, "/", prepIn, &prepOut, io.MultiWriter(log, &errb)); err != nil {
		return c, nil, fail("making the cache repository", fmt.Errorf("%v: %s", err, strings.TrimSpace(errb.String())))
	}
	if p.sandbox && !strings.Contains(prepOut.String(), "sandbox=bwrap") {
		return c, nil, fmt.Errorf("runner %s: the sandbox was asked for (--sandbox or git config nudge.sandbox) but bubblewrap (bwrap) does not run on %s, so the command was not run there unconfined; install bubblewrap on the host (and allow unprivileged user namespaces), or run with --no-sandbox only if you trust the command with that account", p.name, p.host)
	}
	if !strings.Contains(prepOut.String(), "base=present") {
		fmt.Fprintf(log, "git nudge: runner %s: sending the snapshot's objects that %s lacks (git push)\n", p.name, p.host)
		if err := quiet([]string{"git", "push", "-q", "--no-verify", p.host + ":" + cache, "+" + baseRef + ":" + remoteBase}, io.Discard); err != nil {
			return c, nil, fail("sending the snapshot", err)
		}
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
		run = `bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --bind "$d" "$d" ` + net + ` --die-with-parent --new-session --chdir "$PWD" -- env ` + run
	} else {
		run = "env " + run
	}
	script := strings.Join([]string{
		"set -u",
		"exec 3<&0",
		"cd " + qcache + " || exit 125",
		"w=\"$PWD/" + work + "\"",
		"rm -rf \"$w\" \"$w.bundle\" \"$w.done\" \"$w.lost\" \"$w.pid\" \"$w.slot\"",
		// A worktree of the pool there (work/slotN, taken with an atomic
		// mkdir of work/slotN.busy) is put back to the base: only the
		// files that differ are written, what the last task left is
		// cleaned away. When all are taken, or one cannot be cleaned, a
		// fresh worktree of the task's own.
		"d=\"$w\"; i=1",
		"while [ $i -le " + strconv.Itoa(sshSlots) + " ]; do if mkdir \"work/slot$i.busy\" 2>/dev/null; then echo $i > \"$w.slot\"; d=\"$PWD/work/slot$i\"; break; fi; i=$((i+1)); done",
		"if [ -e \"$d/.git\" ] && ! (cd \"$d\" && git checkout -q --detach -f " + base + " && git clean -q -ffdx) >&2; then rm -rf \"$d\"; fi",
		"[ -e \"$d/.git\" ] || { rm -rf \"$d\"; git worktree prune; git worktree add -q --detach \"$d\" " + base + " >&2; } || exit 125",
		"cd \"$d\"/" + ShellQuote([]string{filepath.ToSlash(rel)}) + " || exit 125",
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
		"cd \"$d\" && git add -A && git -c user.name=git-nudge -c user.email=git-nudge@localhost commit -q --allow-empty --no-verify -m result" +
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
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		// One connection fetches the bundle and cleans up: a command
		// still running there (the connection went before the far side
		// noticed) is killed with its session, then the worktree and
		// what came with it are removed.
		err = quiet(sshArgs("cd "+qcache+" || exit 125; "+
			"if test -e "+work+".lost; then echo 'the connection was lost while the command ran' >&2; rc=3; else cat "+work+".bundle; rc=$?; fi; "+
			"test -e "+work+".done || ! test -e "+work+".pid || { p=$(cat "+work+".pid); kill -KILL -$p 2>/dev/null || kill -KILL $p 2>/dev/null; }; "+
			"if test -e "+work+".slot; then rmdir \"work/slot$(cat "+work+".slot).busy\"; fi; "+
			"rm -rf "+work+" "+work+".bundle "+work+".done "+work+".lost "+work+".pid "+work+".review "+work+".slot; git worktree prune; git update-ref -d "+result+" 2>/dev/null; exit $rc"), f)
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

// sshSlots is how many worktrees the cache repository on an ssh host
// keeps for the tasks that follow (work/slot1 ... there).
const sshSlots = 16

// sshShare is the ssh options that let the connections of one run (and
// of the runs that follow within a minute) share one: a master
// connection whose socket is in a folder of this user's own in the
// temporary folder ($TMPDIR, or /tmp when that path is too long for a
// socket). None when no such folder can be had.
func sshShare() []string {
	for _, tmp := range []string{os.TempDir(), "/tmp"} {
		dir := filepath.Join(tmp, fmt.Sprintf("git-nudge-ssh-%d", os.Getuid()))
		// The socket's name is 40 hex digits, and ssh binds a temporary
		// name 17 characters longer first; a socket path has at most
		// 107 bytes.
		if len(dir)+1+40+17 > 100 {
			continue
		}
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			continue
		}
		st, err := os.Lstat(dir)
		if err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
			continue
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); !ok || int(sys.Uid) != os.Getuid() {
			continue
		}
		return []string{"-o", "ControlMaster=auto", "-o", "ControlPath=" + dir + "/%C", "-o", "ControlPersist=60"}
	}
	return nil
}
