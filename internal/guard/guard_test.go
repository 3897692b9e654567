package guard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// newGuard is the guard of a fresh repository with one commit, its state
// folder inside the work tree as .nudgethis, and its settings trusted.
func newGuard(t *testing.T) *Guard {
	t.Helper()
	dir := testutil.Repo(t)
	testutil.Commit(t, dir, map[string]string{"a.txt": "a\n"}, "base")
	r, err := git.Discover(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	g := &Guard{Repo: r, Dir: filepath.Join(dir, ".nudgethis"), Identity: git.Identity{Name: "nudge", Email: "nudge@localhost"}}
	if err := os.MkdirAll(g.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	now, err := g.Scan()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Trust(context.Background(), now); err != nil {
		t.Fatal(err)
	}
	return g
}

func (g *Guard) trusted(t *testing.T) State {
	t.Helper()
	b, err := os.ReadFile(g.Path())
	if err != nil {
		t.Fatal(err)
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A hook added and a config key changed are found, put back (the hook
// removed, the config as trusted), kept in a quarantine folder; accepting
// that folder puts both in place again, trusts them, and cannot be done
// twice.
func TestPutBackThenAccept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := newGuard(t)
	cd := g.Repo.CommonDir
	config := filepath.Join(cd, "config")
	before := readFile(t, config)
	testutil.Git(t, g.Repo.WorkTree, "config", "core.fsmonitor", "touch /tmp/pwned")
	hook := filepath.Join(cd, "hooks", "pre-commit")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	now, err := g.Scan()
	if err != nil {
		t.Fatal(err)
	}
	changes := Diff(g.trusted(t).Files, now)
	var paths []string
	for _, c := range changes {
		paths = append(paths, c.Path)
	}
	if strings.Join(paths, " ") != "config hooks/pre-commit" {
		t.Fatalf("changes found: %q", paths)
	}
	lines := g.Describe(ctx, changes)
	if !strings.Contains(strings.Join(lines, "\n"), `core.fsmonitor = "touch /tmp/pwned" was added`) {
		t.Errorf("described as %q", lines)
	}
	qdir, problems := g.PutBack(ctx, changes)
	if len(problems) > 0 || qdir == "" {
		t.Fatalf("put back: %q %q", qdir, problems)
	}
	if got := readFile(t, config); got != before {
		t.Errorf("config not put back:\n%s", got)
	}
	if _, err := os.Lstat(hook); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the added hook is still there: %v", err)
	}
	if got := readFile(t, filepath.Join(qdir, "hooks", "pre-commit")); !strings.Contains(got, "exit 0") {
		t.Errorf("the hook found was not kept: %q", got)
	}
	if err := g.WriteManifest(qdir, changes, []string{"t1"}, lines); err != nil {
		t.Fatal(err)
	}

	res, err := g.Accept(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Folder != qdir || strings.Join(res.Tasks, " ") != "t1" || len(res.Lines) != len(lines) {
		t.Errorf("accepted %+v", res)
	}
	if got := testutil.Git(t, g.Repo.WorkTree, "config", "core.fsmonitor"); got != "touch /tmp/pwned" {
		t.Errorf("config not put in place again: %q", got)
	}
	if st, err := os.Stat(hook); err != nil || st.Mode().Perm()&0o100 == 0 {
		t.Errorf("hook not put in place again (executable): %v", err)
	}
	now, err = g.Scan()
	if err != nil {
		t.Fatal(err)
	}
	if c := Diff(g.trusted(t).Files, now); len(c) != 0 {
		t.Errorf("what was accepted is not the trusted state: %+v", c)
	}
	// Until the folder is marked, accept can run again; then never.
	if _, err := g.Accept(ctx, ""); err != nil {
		t.Fatalf("accept before the folder was marked: %v", err)
	}
	if err := g.MarkAccepted(res); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Accept(ctx, ""); !errors.Is(err, ErrNothingToAccept) {
		t.Errorf("a second accept of the newest folder: %v", err)
	}
	if _, err := g.Accept(ctx, filepath.Base(qdir)); err == nil || !strings.Contains(err.Error(), "accepted already") {
		t.Errorf("a second accept of %s: %v", qdir, err)
	}
}

// A quarantine manifest is untrusted input: one naming a file outside the
// watched settings (here the object store) is refused before anything is
// written.
func TestAcceptRefusesUnwatchedPaths(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := newGuard(t)
	for _, bad := range []string{"objects/info/alternates", "../outside", "HEAD"} {
		qdir, err := g.newQuarantine()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(qdir, "x"), []byte("/tmp/evil\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		m := Manifest{Version: 1, Found: []Found{{Path: bad, File: &File{Path: bad, Mode: git.ModeFile}, Copy: "x"}}}
		b, _ := json.Marshal(m)
		if err := os.WriteFile(filepath.Join(qdir, manifestName), b, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err = g.Accept(ctx, filepath.Base(qdir))
		if err == nil || !strings.Contains(err.Error(), "none of the settings files the guard watches") {
			t.Errorf("%s: %v", bad, err)
		}
		target := filepath.Join(g.Repo.CommonDir, filepath.FromSlash(bad))
		if b, err := os.ReadFile(target); err == nil && bytes.Contains(b, []byte("/tmp/evil")) {
			t.Errorf("%s was written", target)
		}
	}
}

// CheckWorktree refuses a task worktree whose .git file names a git
// folder other than its own admin folder, and sets aside a config.worktree
// planted in its own one (keeping the sparse-checkout keys git writes).
func TestCheckWorktree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := newGuard(t)
	wt := filepath.Join(testutil.RealTempDir(t), "wt")
	testutil.Git(t, g.Repo.WorkTree, "worktree", "add", "-q", "--detach", wt)
	open := func() *git.Repo {
		wr, err := git.Discover(ctx, wt)
		if err != nil {
			t.Fatal(err)
		}
		return wr
	}
	if err := g.CheckWorktree(ctx, "t1", open()); err != nil {
		t.Fatalf("a clean worktree: %v", err)
	}
	admin, name := g.AdminDir(wt)
	if name == "" || filepath.Dir(admin) != filepath.Join(g.Repo.CommonDir, "worktrees") {
		t.Fatalf("admin folder of %s: %q %q", wt, admin, name)
	}
	cw := filepath.Join(admin, "config.worktree")
	if err := os.WriteFile(cw, []byte("[filter \"x\"]\n\tclean = touch /tmp/pwned\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := g.WorktreeConfig(ctx, wt); len(c) != 1 || c[0].Path != "worktrees/"+name+"/config.worktree" {
		t.Errorf("WorktreeConfig: %+v", c)
	}
	var warn bytes.Buffer
	g.Warn = &warn
	if err := g.CheckWorktree(ctx, "t1", open()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(cw); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the planted config.worktree is still there: %v", err)
	}
	if !strings.Contains(warn.String(), "removed") {
		t.Errorf("not said: %q", warn.String())
	}
	if err := os.WriteFile(cw, []byte("[core]\n\tsparseCheckout = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := g.CheckWorktree(ctx, "t1", open()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(cw); err != nil {
		t.Errorf("git's own sparse-checkout config.worktree was removed: %v", err)
	}
	// A second worktree whose .git file was rewritten to name the main
	// git folder.
	wt2 := filepath.Join(filepath.Dir(wt), "wt2")
	testutil.Git(t, g.Repo.WorkTree, "worktree", "add", "-q", "--detach", wt2)
	if err := os.WriteFile(filepath.Join(wt2, ".git"), []byte("gitdir: "+g.Repo.GitDir+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wr, err := git.Discover(ctx, wt2)
	if err != nil {
		t.Fatal(err)
	}
	err = g.CheckWorktree(ctx, "t2", wr)
	if err == nil || !strings.Contains(err.Error(), "its .git file was rewritten") {
		t.Errorf("a worktree using the main git folder (%s): %v", wr.GitDir, err)
	}
}

// ReadPlain reads a regular file only: never a symlink out of the root,
// never a fifo (which would block), never more than asked.
func TestReadPlain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big"), bytes.Repeat([]byte("x"), 100), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ok"), []byte("ok"), 0o600); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, name := range []string{"link", "fifo", "big"} {
		if b, err := ReadPlain(root, name, 10); err == nil {
			t.Errorf("%s read: %q", name, b)
		}
	}
	if b, err := ReadPlain(root, "ok", 10); err != nil || string(b) != "ok" {
		t.Errorf("ok: %q %v", b, err)
	}
}

// What an unsandboxed run does to the refs outside the suite's own is
// undone and kept: a branch it made is moved aside, a branch it moved is
// put back (its value kept), a tag it deleted is made again; a commit the
// main worktree's own HEAD log shows is the user's and stays; the suite's
// own refs are never compared; --keep-refs only lists.
func TestQuarantineRefs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := newGuard(t)
	dir := g.Repo.WorkTree
	base := testutil.Git(t, dir, "rev-parse", "HEAD")
	testutil.Git(t, dir, "branch", "keep")
	testutil.Git(t, dir, "tag", "v1")
	before := g.RefsBeforeRun(ctx, false, nil)
	if _, ok := before["refs/heads/keep"]; !ok || len(g.RefsBeforeRun(ctx, true, nil)) != 0 {
		t.Fatalf("refs before: %v", before)
	}
	next := testutil.Commit(t, dir, map[string]string{"b.txt": "b\n"}, "the user's commit") // moves main
	testutil.Git(t, dir, "branch", "made", next)
	testutil.Git(t, dir, "branch", "-f", "keep", next)
	testutil.Git(t, dir, "tag", "-d", "v1")
	testutil.Git(t, dir, "update-ref", "refs/nudgethis/x", next)
	var warn bytes.Buffer
	changes := g.QuarantineRefs(ctx, "t7", "", before, false, &warn)
	got := map[string]RefChange{}
	for _, c := range changes {
		got[c.Ref] = c
	}
	if len(changes) != 4 || got["refs/heads/made"].Action != "moved aside" || got["refs/heads/keep"].Action != "put back" ||
		got["refs/tags/v1"].Action != "put back" || !strings.HasPrefix(got["refs/heads/main"].Action, "kept (a worktree of yours") {
		t.Fatalf("changes: %+v (%s)", changes, warn.String())
	}
	ref := func(name string) string {
		v, _ := testutil.TryGit(dir, "rev-parse", "-q", "--verify", name)
		return v
	}
	if ref("refs/heads/keep") != base || ref("refs/tags/v1") != base || ref("refs/heads/made") != "" || ref("refs/heads/main") != next {
		t.Errorf("not undone: keep %s v1 %s made %s main %s", ref("refs/heads/keep"), ref("refs/tags/v1"), ref("refs/heads/made"), ref("refs/heads/main"))
	}
	if ref(QuarantinePrefix+"t7/refs/heads/made") != next || ref(QuarantinePrefix+"t7/refs/heads/keep") != next {
		t.Errorf("the task's values are not kept under %st7/", QuarantinePrefix)
	}
	// --keep-refs: listed, left in place.
	before = g.RefsBeforeRun(ctx, false, nil)
	testutil.Git(t, dir, "branch", "other", next)
	changes = g.QuarantineRefs(ctx, "t8", "", before, true, &warn)
	if len(changes) != 1 || changes[0].Action != "kept (--keep-refs)" || ref("refs/heads/other") != next {
		t.Errorf("keep: %+v", changes)
	}
}

// TestUserHeadMovesSkipsOddFiles: the worktree admin files a task can
// write in the shared git folder (gitdir, HEAD, logs/HEAD) are read only
// when plain: a fifo there would otherwise block the reader for good, and a
// symbolic link could point it anywhere.
func TestUserHeadMovesSkipsOddFiles(t *testing.T) {
	t.Parallel()
	g := newGuard(t)
	outside := t.TempDir()
	for _, name := range []string{"fifo-gitdir", "fifo-head", "fifo-log", "link-head"} {
		admin := filepath.Join(g.Repo.CommonDir, "worktrees", name)
		if err := os.MkdirAll(filepath.Join(admin, "logs"), 0o755); err != nil {
			t.Fatal(err)
		}
		files := map[string]string{"gitdir": filepath.Join(outside, name, ".git") + "\n", "HEAD": "ref: refs/heads/" + name + "\n",
			"logs/HEAD": strings.Repeat("0", 40) + " " + strings.Repeat("1", 40) + " u <u@x> 1 +0000\tcommit: x\n"}
		for f, body := range files {
			if err := os.WriteFile(filepath.Join(admin, f), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		odd := map[string]string{"fifo-gitdir": "gitdir", "fifo-head": "HEAD", "fifo-log": "logs/HEAD"}[name]
		if odd != "" {
			p := filepath.Join(admin, odd)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		} else {
			p := filepath.Join(admin, "HEAD")
			target := filepath.Join(outside, "HEAD")
			if err := os.Rename(p, target); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	// One plain worktree beside them is still read.
	plain := filepath.Join(g.Repo.CommonDir, "worktrees", "plain")
	if err := os.MkdirAll(filepath.Join(plain, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for f, body := range map[string]string{"gitdir": filepath.Join(outside, "plain", ".git") + "\n", "HEAD": "ref: refs/heads/plain\n",
		"logs/HEAD": strings.Repeat("0", 40) + " " + strings.Repeat("2", 40) + " u <u@x> 1 +0000\tcommit: x\n"} {
		if err := os.WriteFile(filepath.Join(plain, f), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan map[string]string, 1)
	go func() { done <- g.userHeadMoves() }()
	select {
	case got := <-done:
		for _, name := range []string{"fifo-gitdir", "fifo-head", "fifo-log", "link-head"} {
			if c, ok := got["refs/heads/"+name]; ok {
				t.Errorf("worktree %s read through an odd file: %s", name, c)
			}
		}
		if got["refs/heads/plain"] != strings.Repeat("2", 40) {
			t.Errorf("plain worktree's move not read: %v", got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("userHeadMoves blocked on a fifo")
	}
}
