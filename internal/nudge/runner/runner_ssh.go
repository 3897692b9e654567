package runner

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/proc"
	"github.com/nudgethis/git-nudge/internal/shquote"
)

// overSSH is onRunner for an ssh runner. The command is ssh running one
// script on the host (sshScript) that makes the cache repository there
// when missing, takes a worktree of it at the task's start, runs the
// task's command in it, and answers on its stdout, after the command's
// own output, with a status line behind a marker of this run's and, when
// the tree changed, a bundle of the result commit (sshAnswer). When the
// cache lacks the start commit the script runs nothing and says so: the
// commit is pushed (git push sends only the objects it lacks) and the
// script runs again. While the command runs, the script watches its
// stdin: when the connection goes (Ctrl-C, a lost network, the client
// killed by drop) the command's session is ended and nothing comes back;
// finish then cleans up over a second connection. A result that came
// back whole is imported as a command runner's (importRunnerResult).
func (w workspace) overSSH(ctx context.Context, p *runnerPlan, t *nudge.Task, c child, log io.Writer) (child, func(int) (int, error), error) {
	r, err := w.newSSHRun(ctx, p, t, c, log)
	if err != nil {
		return c, nil, err
	}
	c.argv = r.sshArgs("sh -c " + shquote.Word(r.script.String()))
	c.path = ""
	w.sshMaster(r.opts, p.host, c.env)
	r.first = c
	if r.answer, err = r.connect(&c); err != nil {
		return c, nil, err
	}
	r.session = c
	return c, r.finish, nil
}

// sshRun is one run of a task's command on an ssh runner (overSSH).
type sshRun struct {
	w   workspace
	ctx context.Context
	p   *runnerPlan
	t   *nudge.Task
	log io.Writer

	dir      string // the run's local folder (the result bundle)
	out      string // where the result bundle is written
	cache    string // the cache repository on the host
	base     string // the start commit, and the ref that names it
	baseRef  string
	baseTree string
	opts     []string // ssh's options, the connection shared
	gitEnv   []string // git push's environment
	review   []byte   // the review comments, sent first on stdin
	script   sshScript

	first   child      // the command as first started, for a second try
	session child      // the command as started last
	answer  *sshAnswer // what the script answered
	stdinW  *os.File   // the write end of the session's stdin
}

// newSSHRun gathers what a run on ssh runner p needs: its local folder
// made afresh, the start commit, the options of ssh and git push, the
// review comments and the script.
func (w workspace) newSSHRun(ctx context.Context, p *runnerPlan, t *nudge.Task, c child, log io.Writer) (*sshRun, error) {
	r := &sshRun{w: w, ctx: ctx, p: p, t: t, log: log, dir: w.RunnerDir(t.ID)}
	if err := os.RemoveAll(r.dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return nil, err
	}
	r.out = filepath.Join(r.dir, "out.bundle")
	r.base, r.baseRef = w.runnerStart(ctx, t)
	var err error
	if r.baseTree, err = w.Repo.TreeOf(ctx, r.base); err != nil {
		return nil, err
	}
	r.cache = strings.TrimSuffix(p.path, "/") + "/cache.git"
	r.opts = append([]string{"-o", "BatchMode=yes", "-o", "ConnectTimeout=30"}, sshShare()...)
	r.gitEnv = c.env
	if envValue(c.env, "GIT_SSH_COMMAND") == "" && envValue(c.env, "GIT_SSH") == "" {
		// git push shares the connection too, unless the user said how
		// git reaches ssh hosts (core.sshCommand is still honoured: it
		// is read only when GIT_SSH_COMMAND is not set).
		if v, _, err := w.Repo.ConfigGet(ctx, "core.sshCommand"); err == nil && strings.TrimSpace(v) == "" {
			r.gitEnv = append(withoutEnv(c.env, "GIT_SSH_COMMAND"), "GIT_SSH_COMMAND=ssh "+shquote.Line(r.opts))
		}
	}
	if path := envValue(c.env, ReviewEnv); path != "" {
		if r.review, err = os.ReadFile(path); err != nil {
			return nil, err
		}
	}
	if r.script, err = r.newScript(c); err != nil {
		return nil, err
	}
	return r, nil
}

// newScript is the script that runs c's command on the host.
func (r *sshRun) newScript(c child) (sshScript, error) {
	rel, err := filepath.Rel(*r.t.Worktree, c.dir)
	if err != nil || !filepath.IsLocal(rel) {
		rel = "."
	}
	var mark [16]byte
	if _, err := rand.Read(mark[:]); err != nil {
		return sshScript{}, err
	}
	s := sshScript{
		cache: r.cache, id: r.t.ID, mark: hex.EncodeToString(mark[:]),
		base: r.base, baseTree: r.baseTree, dir: filepath.ToSlash(rel),
		review: len(r.review), sandbox: r.p.sandbox, sandboxNet: r.p.sandboxNet,
		runner: r.p.name, argv: c.argv,
	}
	for _, k := range []string{"NUDGE_TASK", "NUDGE_ATTEMPT"} {
		if v := envValue(c.env, k); v != "" {
			s.env = append(s.env, k+"="+v)
		}
	}
	return s, nil
}

// sshArgs is ssh running remote on the host.
func (r *sshRun) sshArgs(remote string) []string {
	return append(append([]string{"ssh"}, r.opts...), "--", r.p.host, remote)
}

// quiet runs argv, a step around the command, its errors kept in the
// log. The steps are not cut short by an interrupt: the cleanup must
// run, and ssh has its own timeouts.
func (r *sshRun) quiet(argv []string, stdout io.Writer) error {
	var errb bytes.Buffer
	if err := proc.Quick(context.WithoutCancel(r.ctx), argv, r.gitEnv, r.w.Repo.WorkTree, stdout, io.MultiWriter(r.log, &errb)); err != nil {
		return fmt.Errorf("%s: %v: %s", strings.Join(argv[:min(len(argv), 5)], " "), err, strings.TrimSpace(errb.String()))
	}
	return nil
}

// fail is the error of a step that could not reach the host.
func (r *sshRun) fail(what string, err error) error {
	return fmt.Errorf("runner %s (ssh %s): %s: %w; check that ssh %s works without a password and that git is installed there", r.p.name, r.p.host, what, err, r.p.host)
}

// connect gives connection c its stdin, the review comments first and
// then nothing (the script reads the end of its stdin as the end of the
// connection), and reads the script's answer from its stdout.
func (r *sshRun) connect(c *child) (*sshAnswer, error) {
	rd, wr, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	r.stdinW = wr
	if len(r.review) > 0 {
		go func() { _, _ = wr.Write(r.review) }()
	}
	a := &sshAnswer{out: c.stdout, mark: []byte(r.script.mark), path: r.out}
	c.stdout = a
	c.stdin = rd
	return a, nil
}

// hangUp ends the answer of connection c and closes its stdin.
func (r *sshRun) hangUp(c child) {
	r.answer.end()
	c.stdin.(*os.File).Close()
	r.stdinW.Close()
}

// finish, once the connection ended with code, sends the start commit
// and runs the script again when the cache lacked it, then takes the
// answer: the result imported, or the far side cleaned up and the
// reason given.
func (r *sshRun) finish(code int) (int, error) {
	defer os.RemoveAll(r.dir)
	r.hangUp(r.session)
	if r.answer.kind == "missing" {
		var err error
		if code, err = r.pushAndRerun(code); err != nil {
			return code, err
		}
	}
	a := r.answer
	switch {
	case a.kind == "missing":
		return code, r.fail("sending the snapshot", fmt.Errorf("the cache repository there still lacks %s after the push", r.base))
	case a.kind == "nosandbox":
		return code, fmt.Errorf("runner %s: the sandbox was asked for (--sandbox or git config nudge.sandbox) but bubblewrap (bwrap) does not run on %s, so the command was not run there unconfined; install bubblewrap on the host (and allow unprivileged user namespaces), or run with --no-sandbox only if you trust the command with that account", r.p.name, r.p.host)
	case a.whole():
		return r.takeResult()
	}
	return code, r.cleanUpLost(code)
}

// pushAndRerun sends the start commit, which the cache lacks, and runs
// the script again (the command has not run yet).
func (r *sshRun) pushAndRerun(code int) (int, error) {
	fmt.Fprintf(r.log, "git nudge: runner %s: sending the snapshot's objects that %s lacks (git push)\n", r.p.name, r.p.host)
	unlock := r.w.sshLock(r.p.host + ":" + r.cache)
	push := []string{"git", "push", "-q", "--no-verify", r.p.host + ":" + r.cache, "+" + r.baseRef + ":refs/nudge/base/" + r.t.ID}
	err := r.quiet(push, io.Discard)
	// Another task adding a worktree in the cache at that moment makes
	// git's check of the pushed refs fail on the worktree's unfinished
	// HEAD: the push is tried again, twice at most.
	for try := 0; err != nil && try < 2; try++ {
		time.Sleep(time.Second)
		err = r.quiet(push, io.Discard)
	}
	unlock()
	if err != nil {
		return code, r.fail("sending the snapshot", err)
	}
	again := r.first
	if r.answer, err = r.connect(&again); err != nil {
		return code, err
	}
	code, err = again.run()
	r.hangUp(again)
	return code, err
}

// takeResult imports the result the script answered in full (it cleaned
// up after itself) and returns the command's exit status.
func (r *sshRun) takeResult() (int, error) {
	code := int(r.answer.code)
	ctx := context.WithoutCancel(r.ctx)
	if r.answer.kind == "unchanged" {
		// The result is the start's tree: nothing to import, and a
		// worktree made by this run holds it already.
		if r.p.fresh {
			return code, nil
		}
		return code, r.w.resetToRunnerResult(ctx, r.t, r.baseTree)
	}
	if err := r.w.importRunnerResult(ctx, r.t, r.out, sshResultRef+r.t.ID); err != nil {
		return code, fmt.Errorf("runner %s: the result bundle was refused, nothing was imported: %w", r.p.name, err)
	}
	return code, nil
}

// cleanUpLost, when no whole answer came (the connection went, or the
// far side failed, before the result), ends over one more connection a
// command still running there (the connection went before the far side
// noticed) with its session, gives back its worktree there and removes
// what came with it; it says why nothing was imported.
func (r *sshRun) cleanUpLost(code int) error {
	var said bytes.Buffer
	cerr := r.quiet(r.sshArgs(r.script.cleanup()), &said)
	switch {
	case strings.Contains(said.String(), "lost"):
		return fmt.Errorf("runner %s: the connection was lost while the command ran on %s; nothing was imported", r.p.name, r.p.host)
	case code == 255 || cerr != nil:
		return fmt.Errorf("runner %s: the connection to %s was lost (ssh exited with status %d) and the result could not be fetched; nothing was imported; check that ssh %s works without a password", r.p.name, r.p.host, code, r.p.host)
	}
	return r.fail("running the command there", fmt.Errorf("the far side ended with status %d before sending the result, nothing was imported (its messages are in the run log)", code))
}

// sshResultRef is where the script on an ssh host puts a task's result
// commit for the bundle (followed by the task's id), removed once the
// bundle is written.
const sshResultRef = "refs/nudge/results/"

// sshScript is the script an ssh runner runs on the host for one task.
type sshScript struct {
	cache, id, mark string
	base, baseTree  string
	dir             string // where the command starts, relative to the top
	review          int    // bytes of review comments first on stdin
	sandbox         bool
	sandboxNet      bool
	runner          string
	env, argv       []string
}

// String is the script. It needs sh, git and, for review comments, a head
// that takes -c. What it prints on stdout after the command's own output
// is the answer (sshAnswer): the marker, then "KIND CODE SIZE", then SIZE
// bytes of bundle; KIND is missing (the cache lacks the start commit,
// nothing ran), nosandbox (bubblewrap does not run there, nothing ran),
// unchanged (the command left the start's tree) or bundle.
func (s sshScript) String() string {
	q := shquote.Word
	work := "work/" + s.id
	result := sshResultRef + s.id
	env := append(append([]string{}, s.env...), "NUDGE_RUNNER="+s.runner)
	run := shquote.Line(env)
	if s.review > 0 {
		run += ` NUDGE_REVIEW="$w.review"`
	}
	run += " " + shquote.Line(s.argv)
	if s.sandbox {
		// Everything read-only but the worktree, its own /tmp, /dev and
		// /proc, no network unless nudge.sandbox.network is host; the
		// command ends with bubblewrap.
		net := "--unshare-all"
		if s.sandboxNet {
			net = "--unshare-all --share-net"
		}
		run = `bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --bind "$d" "$d" ` + net + ` --die-with-parent --new-session --chdir "$PWD" -- env ` + run
	} else {
		run = "env " + run
	}
	answer := func(kind string) string {
		return `printf '%s ` + kind + ` 0 0\n' "$m"; rm -f "$w.review"; exit 0`
	}
	lines := []string{
		"set -u",
		"exec 3<&0",
		"m=" + s.mark,
		"die() { echo \"git nudge: on the runner's host: $* failed\" >&2; exit 125; }",
		"mkdir -p " + q(s.cache+"/work") + " && cd " + q(s.cache) + " || die making the cache repository",
		// Tasks starting at once on a new host must not both run git
		// init there: the one that loses the race to git's config lock
		// fails, and git then removes what it was making, under the
		// winner. One init at a time, under a folder made as a lock (a
		// lock left by a killed script is broken after 30 s).
		"if ! test -f HEAD; then n=0; until mkdir .init.lock 2>/dev/null; do n=$((n+1)); [ $n -le 30 ] || rm -rf .init.lock; sleep 1; done; " +
			"{ test -f HEAD || git init -q --bare .; } >&2; r=$?; rmdir .init.lock; [ $r = 0 ] || die git init --bare; fi",
		`w="$PWD/` + work + `"`,
		`rm -rf "$w" "$w.bundle" "$w.done" "$w.lost" "$w.pid" "$w.slot" "$w.review"`,
	}
	if s.review > 0 {
		lines = append(lines, `head -c `+strconv.Itoa(s.review)+` > "$w.review" || die reading the review comments`)
	}
	if s.sandbox {
		lines = append(lines, "{ command -v bwrap >/dev/null 2>&1 && bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all --die-with-parent --new-session true >/dev/null 2>&1; } || { "+answer("nosandbox")+"; }")
	}
	lines = append(lines,
		// A worktree of the pool there (work/slotN, taken with an atomic
		// mkdir of work/slotN.busy, which names this run as its owner).
		// One the last task's script put back at this start (slotN.at
		// names the commit it holds, clean) is used as it is; another is
		// put back to the start: only the files that differ are written,
		// and what the last task left is cleaned away unless that script
		// did. When all are taken, or one cannot be put back, a fresh
		// worktree of the task's own.
		`d="$w"; i=1; at=`,
		`while [ $i -le `+strconv.Itoa(sshSlots)+` ]; do if mkdir "work/slot$i.busy" 2>/dev/null; then echo "$m" > "work/slot$i.busy/owner"; echo $i > "$w.slot"; d="$PWD/work/slot$i"; at=$(cat "work/slot$i.at" 2>/dev/null); rm -f "work/slot$i.at"; break; fi; i=$((i+1)); done`,
		`if [ "$at" != `+s.base+` ] || ! [ -e "$d/.git" ]; then`,
		// Only a cache that holds the start commit runs the command.
		`  if ! git cat-file -e `+s.base+`^{commit} 2>/dev/null; then [ "$d" = "$w" ] || rm -rf "work/slot$i.busy"; `+answer("missing")+`; fi`,
		`  if [ -e "$d/.git" ] && ! (cd "$d" && git checkout -q --detach -f `+s.base+` && { [ -n "$at" ] || git clean -q -ffdx; }) >&2; then rm -rf "$d"; fi`,
		`  [ -e "$d/.git" ] || { rm -rf "$d"; git worktree prune; git worktree add -q --detach "$d" `+s.base+` >&2; } || die git worktree add`,
		`fi`,
		`top=$PWD`,
		`cd "$d"/`+q(s.dir)+` || die cd`,
		// A session of its own (setsid, where there is one) so that a
		// lost connection ends all the command started, and so does
		// its end.
		"s=; command -v setsid >/dev/null 2>&1 && s=setsid",
		"$s "+run+" </dev/null 3<&- &",
		`pid=$!; echo $pid > "$w.pid"`,
		// The connection is ssh's stdin, kept as 3 (a background job's
		// stdin would be /dev/null).
		`{ cat >/dev/null; test -e "$w.done" || { touch "$w.lost"; kill -TERM -$pid 2>/dev/null || kill -TERM $pid; sleep 5; kill -KILL -$pid 2>/dev/null; }; } <&3 3<&- &`,
		"watch=$!",
		"wait $pid; code=$?",
		// An answer that cannot be written (the connection went) does
		// not stop the cleanup that follows it.
		"trap '' PIPE",
		`touch "$w.done"; kill $watch 2>/dev/null`,
		`[ -z "$s" ] || kill -KILL -$pid 2>/dev/null`,
		`cd "$top" || die cd`,
		// A run whose connection went, or whose worktree the cleanup
		// connection took back meanwhile, leaves the rest to it.
		`own() { [ "$d" = "$w" ] || [ "$(cat "work/slot$(cat "$w.slot" 2>/dev/null).busy/owner" 2>/dev/null)" = "$m" ]; }`,
		`if [ -e "$w.lost" ] || ! own; then exit 3; fi`,
		`t=$(cd "$d" && git add -A && git write-tree) || die git add`,
		`kind=unchanged; size=0`,
		`if [ "$t" != `+s.baseTree+` ]; then`+
			` c=$(GIT_AUTHOR_NAME=git-nudge GIT_AUTHOR_EMAIL=git-nudge@localhost GIT_COMMITTER_NAME=git-nudge GIT_COMMITTER_EMAIL=git-nudge@localhost git commit-tree "$t" -p `+s.base+` -m result </dev/null)`+
			` && git update-ref `+result+` "$c" && git bundle create -q "$w.bundle" `+result+` ^`+s.base+` || die committing the result;`+
			` git update-ref -d `+result+`; kind=bundle; size=$(wc -c < "$w.bundle"); fi`,
		// The worktree is put back to the start (or removed) after the
		// answer, in the background, so that the answer does not wait
		// for it; the slot stays taken until then, under an owner name
		// the cleanup connection does not take back.
		`rm -f "$w.done" "$w.pid" "$w.review" "$w.slot"`,
		`[ "$d" = "$w" ] || echo "$m.back" > "work/slot$i.busy/owner"`,
		`printf '%s %s %s %s\n' "$m" $kind $code $size`,
		`[ $kind = unchanged ] || cat "$w.bundle"`,
		`rm -f "$w.bundle"`,
		`exec </dev/null >/dev/null 2>&1 3<&-`,
		`if [ "$d" = "$w" ]; then (rm -rf "$w"; git worktree prune) &`,
		`else (cd "$d" && git checkout -q --detach -f `+s.base+` && git clean -q -ffdx && echo `+s.base+` > "$top/work/slot$i.at"; rm -rf "$top/work/slot$i.busy") & fi`,
		"exit $code",
	)
	return strings.Join(lines, "\n")
}

// cleanup is the script that, after a run whose answer did not come back
// whole, ends the command's session there if it still runs, gives back
// the worktree when this run still owns it and removes the task's files.
// It prints "lost" when the command had not ended by itself.
func (s sshScript) cleanup() string {
	work := "work/" + s.id
	return "cd " + shquote.Word(s.cache) + " || exit 125; m=" + s.mark + "; " +
		"if test -e " + work + ".lost || ! test -e " + work + ".done; then echo lost; fi; " +
		"test -e " + work + ".done || ! test -e " + work + ".pid || { p=$(cat " + work + ".pid); kill -KILL -$p 2>/dev/null || kill -KILL $p 2>/dev/null; }; " +
		"if test -e " + work + ".slot; then b=\"work/slot$(cat " + work + ".slot).busy\"; [ \"$(cat \"$b/owner\" 2>/dev/null)\" != \"$m\" ] || rm -rf \"$b\"; fi; " +
		"rm -rf " + work + " " + work + ".bundle " + work + ".done " + work + ".lost " + work + ".pid " + work + ".review " + work + ".slot; git worktree prune; git update-ref -d " + sshResultRef + s.id + " 2>/dev/null; exit 0"
}

// sshAnswer passes the far script's stdout on to out up to the marker,
// and reads what follows it: the status line, then the bundle, written to
// path.
type sshAnswer struct {
	out  io.Writer
	mark []byte
	path string
	// held is the end of the output so far that may be the start of
	// the marker.
	held  []byte
	found bool
	line  []byte
	// kind, code and size are the status line's, once read.
	kind       string
	code, size int64
	f          *os.File
	got        int64
	err        error
}

func (a *sshAnswer) Write(p []byte) (int, error) {
	n := len(p)
	if !a.found {
		buf := append(a.held, p...)
		i := bytes.Index(buf, a.mark)
		if i < 0 {
			k := len(buf)
			for j := max(0, len(buf)-len(a.mark)+1); j < len(buf); j++ {
				if bytes.HasPrefix(a.mark, buf[j:]) {
					k = j
					break
				}
			}
			a.held = append([]byte(nil), buf[k:]...)
			if _, err := a.out.Write(buf[:k]); err != nil {
				return 0, err
			}
			return n, nil
		}
		a.found, a.held = true, nil
		if _, err := a.out.Write(buf[:i]); err != nil {
			return 0, err
		}
		p = buf[i+len(a.mark):]
	}
	if a.kind == "" {
		j := bytes.IndexByte(p, '\n')
		if j < 0 {
			a.line = append(a.line, p...)
			if len(a.line) > 200 {
				a.kind = "bad"
			}
			return n, nil
		}
		a.line = append(a.line, p[:j]...)
		p = p[j+1:]
		f := strings.Fields(string(a.line))
		a.kind, a.code, a.size = "bad", -1, -1
		if len(f) == 3 {
			code, err1 := strconv.ParseInt(f[1], 10, 64)
			size, err2 := strconv.ParseInt(f[2], 10, 64)
			if err1 == nil && err2 == nil && code >= 0 && code < 256 && size >= 0 {
				a.kind, a.code, a.size = f[0], code, size
			}
		}
		if a.kind == "bundle" {
			if a.f, a.err = os.Create(a.path); a.err != nil {
				a.kind = "bad"
			}
		}
	}
	if a.f != nil && len(p) > 0 && a.err == nil {
		if a.got+int64(len(p)) > a.size {
			a.err = errors.New("more bytes than the answer said")
			return n, nil
		}
		_, a.err = a.f.Write(p)
		a.got += int64(len(p))
	}
	return n, nil
}

// end passes on output held back as a possible start of the marker that
// never came, and closes the bundle.
func (a *sshAnswer) end() {
	if !a.found && len(a.held) > 0 {
		_, _ = a.out.Write(a.held)
		a.held = nil
	}
	if a.f != nil {
		if err := a.f.Close(); a.err == nil {
			a.err = err
		}
		a.f = nil
	}
}

// whole reports whether the answer came in full: a command that ran and
// its result, all of it.
func (a *sshAnswer) whole() bool {
	switch a.kind {
	case "unchanged":
		return true
	case "bundle":
		return a.err == nil && a.got == a.size
	}
	return false
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

// sshLock takes, until the returned func is called, the lock named
// by target in the workspace (a push to one cache repository on an ssh
// host, or the start of its master connection): tasks starting at once on
// a snapshot the host lacks all find it missing, and would send the same
// objects at once; one after another, the later ones send nothing.
// Without a lock file (a read-only state folder) the step goes unguarded.
func (w workspace) sshLock(target string) func() {
	sum := sha1.Sum([]byte(target))
	f, err := os.OpenFile(filepath.Join(w.Dir, "ssh-lock-"+hex.EncodeToString(sum[:8])+".lock"), os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return func() {}
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return func() {}
	}
	return func() { f.Close() }
}

// sshMaster starts the master connection to host that the task's ssh
// sessions share, when sharing is on and none runs yet: in a session of
// its own, so that it outlives the task that started it. A master that a
// task's own ssh became would go with that task's process group, and take
// with it the sessions of the other tasks running on the host at the same
// time. One task at a time checks and starts it; if it cannot be started,
// each ssh makes its own connection as before.
func (w workspace) sshMaster(opts []string, host string, env []string) {
	shared := false
	for _, o := range opts {
		shared = shared || strings.HasPrefix(o, "ControlPath=")
	}
	if !shared {
		return
	}
	unlock := w.sshLock("master " + host)
	defer unlock()
	// "ssh" found as the task's sessions find it.
	const ssh = "ssh"
	check := append(append(append([]string{ssh}, opts...), "-O", "check", "--"), host)
	if proc.Quick(context.Background(), check, env, w.Repo.WorkTree, io.Discard, io.Discard) == nil {
		return
	}
	_ = proc.Detached(append(append(append([]string{ssh, "-o", "ControlMaster=yes"}, opts...), "-f", "-N", "--"), host), env)
}
