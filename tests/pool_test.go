//go:build unix

package tests

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/nudgethis/git-nudge/internal/testutil"
)

// The pool of task worktrees: a worktree a task littered, parked
// by drop and taken by the next start, must start exactly as a fresh
// git worktree add --detach of the new snapshot: every name, mode, byte
// and symlink target, its HEAD, its index and its worktree settings.

// poolRepo is a repository for the pool tests, run in -short too (the
// crash sandbox skips there): same isolated environment.
func poolRepo(t *testing.T) *sandbox {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, tmp, dir := filepath.Join(root, "home"), filepath.Join(root, "tmp"), filepath.Join(root, "repo")
	for _, d := range []string{home, tmp, dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	vars, err := testutil.IsolatedHome(home)
	if err != nil {
		t.Fatal(err)
	}
	s := &sandbox{t: t, dir: dir, env: append([]string{
		"PATH=" + os.Getenv("PATH"), "TMPDIR=" + tmp, "LC_ALL=C", "NO_COLOR=1",
	}, vars...)}
	s.git("init", "-q")
	// These tests drop tasks whose worktrees they keep (a finished task
	// otherwise gives its worktree back by itself).
	s.git("config", "nudge.keepWorktrees", "true")
	return s
}

// treePicture is every entry under root except the top .git file: name ->
// type, full mode (folders too) and content hash or symlink target.
func treePicture(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == ".git" {
			return nil
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = fmt.Sprintf("link %v -> %s", st.Mode(), target)
		case st.IsDir():
			out[rel] = fmt.Sprintf("dir %v", st.Mode())
		case !st.Mode().IsRegular():
			out[rel] = fmt.Sprintf("special %v", st.Mode()) // a fifo is never read
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = fmt.Sprintf("file %v %x", st.Mode(), sha256.Sum256(data))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// gitState is what git says of the worktree at dir: HEAD, the index with
// its stages, status with ignored files, the worktree's own settings, the
// hooks path git would use and the entries of its git folder.
func (s *sandbox) gitState(dir string) string {
	s.t.Helper()
	run := func(args ...string) string {
		c := s.command(dir, "git", args)
		var out, errb bytes.Buffer
		c.Stdout, c.Stderr = &out, &errb
		if err := c.Run(); err != nil {
			return fmt.Sprintf("(git %s: %v)", strings.Join(args, " "), err)
		}
		return out.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "HEAD %s", run("rev-parse", "HEAD"))
	fmt.Fprintf(&b, "symbolic %s", run("symbolic-ref", "-q", "HEAD"))
	fmt.Fprintf(&b, "index\n%s", run("ls-files", "-s", "--stage", "-v"))
	fmt.Fprintf(&b, "status\n%s", run("status", "--porcelain", "--ignored", "--untracked-files=all"))
	fmt.Fprintf(&b, "worktree config\n%s", run("config", "--worktree", "--list"))
	fmt.Fprintf(&b, "hooksPath %s", run("config", "core.hooksPath"))
	fmt.Fprintf(&b, "refs\n%s", run("for-each-ref", "--format=%(refname)", "refs/bisect", "refs/worktree", "refs/rewritten"))
	admin := strings.TrimSpace(run("rev-parse", "--absolute-git-dir"))
	ents, _ := os.ReadDir(admin)
	var names []string
	for _, e := range ents {
		if e.Name() != "logs" { // the reflog of HEAD: history, not state
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	fmt.Fprintf(&b, "git folder %v\n", names)
	return b.String()
}

func (s *sandbox) poolList() []string {
	s.t.Helper()
	var v struct {
		Worktrees []struct{ Name, Path string }
	}
	r := s.ok(s.nudge("pool", "--json"), "pool --json")
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		s.t.Fatalf("pool --json: %v\n%s", err, r.stdout)
	}
	var names []string
	for _, w := range v.Worktrees {
		names = append(names, w.Name)
	}
	return names
}

// litter is what the untrusted task does to its worktree: every kind of
// leftover a reused worktree must not show.
const litter = `set -e
printf 'changed\n' > a.txt
printf 'X\n' > same.txt; touch -d '2001-02-03 04:05:06' same.txt
rm dir/deep/c.txt
chmod 755 dir/keep.txt
chmod 700 dir
printf 'new\n' > new.txt
mkdir -p newdir/sub && printf 'n\n' > newdir/sub/f
printf 'log\n' > x.log
mkdir -p build && printf 'o\n' > build/out
mkdir -p empty/inner dir/deep/hollow
ln -s /etc escape
rm link && printf 'not a link\n' > link
rm -rf tool && ln -s /tmp tool
git init -q nested && printf 'n\n' > nested/f && git -C nested add f
mkdir -p dir/inner && git init -q dir/inner
rm secret.env && printf 'stolen\n' > secret.env
git add new.txt
git update-index --chmod=+x a.txt
gd=$(git rev-parse --absolute-git-dir)
printf '[core]\n\thooksPath = /tmp/evil-hooks\n' > "$gd/config.worktree"
mkdir -p "$gd/refs/bisect" && git rev-parse HEAD > "$gd/refs/bisect/bad"
printf 'junk\n' > "$gd/MERGE_HEAD"
mkfifo fifo
`

func TestPoolReuseIsFresh(t *testing.T) {
	s := poolRepo(t)
	s.write(map[string]*spec{
		"a.txt": file("a\n"), "same.txt": file("Y\n"), "dir/deep/c.txt": file("c\n"), "dir/keep.txt": file("k\n"),
		"tool/run.sh": execFile("#!/bin/sh\n"), ".gitignore": file("*.log\nbuild/\nsecret.env\n"),
		".worktreeinclude": file("secret.env\n"), "secret.env": file("token\n"),
	})
	if err := os.Symlink("a.txt", filepath.Join(s.dir, "link")); err != nil {
		t.Fatal(err)
	}
	s.git("add", "-A")
	s.git("commit", "-qm", "base")

	// A task that litters its worktree; its result is captured, so drop
	// parks the worktree.
	s.ok(s.nudge("run", "--", "sh", "-c", litter), "littering run")
	s.ok(s.nudge("drop", "t1"), "drop t1")
	if got := s.poolList(); len(got) != 1 {
		t.Fatalf("after drop, pool = %v, want one parked worktree", got)
	}
	if _, err := os.Lstat(filepath.Join(s.dir, ".nudgethis", "worktrees", "t1")); err == nil {
		t.Fatal("t1's worktree folder is still there after drop")
	}

	// The workspace moves on: the next snapshot differs from t1's.
	s.write(map[string]*spec{"a.txt": file("a2\n"), "added.txt": file("added\n"), "dir/deep/c.txt": nil})
	st := s.ok(s.nudge("start", "--no-setup"), "start t2")
	if strings.Contains(st.stdout+st.stderr, "could not be proved clean") {
		t.Fatalf("the pooled worktree was discarded, not reused:\n%s%s", st.stdout, st.stderr)
	}
	if got := s.poolList(); len(got) != 0 {
		t.Fatalf("start did not take the pooled worktree: pool = %v", got)
	}
	reused := filepath.Join(s.dir, ".nudgethis", "worktrees", "t2")
	snap := s.git("rev-parse", "refs/nudgethis/snapshots/t2")

	fresh := filepath.Join(filepath.Dir(s.dir), "fresh")
	s.git("worktree", "add", "-q", "--detach", fresh, snap)
	// What start adds to any new worktree: the ignored files
	// .worktreeinclude lists.
	data, err := os.ReadFile(filepath.Join(s.dir, "secret.env"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fresh, "secret.env"), data, 0o644); err != nil {
		t.Fatal(err)
	}

	want, got := treePicture(t, fresh), treePicture(t, reused)
	var diffs []string
	for _, k := range sortedKeys(want) {
		if got[k] != want[k] {
			diffs = append(diffs, fmt.Sprintf("%s: fresh %q, reused %q", k, want[k], got[k]))
		}
	}
	for _, k := range sortedKeys(got) {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: only in the reused worktree (%s)", k, got[k]))
		}
	}
	if len(diffs) > 0 {
		t.Fatalf("the reused worktree differs from a fresh one:\n%s", strings.Join(diffs, "\n"))
	}
	if w, g := s.gitState(fresh), s.gitState(reused); w != g {
		t.Fatalf("git state differs\nfresh:\n%s\nreused:\n%s", w, g)
	}
	if b, err := os.ReadFile(filepath.Join(reused, ".git")); err != nil || !strings.HasPrefix(string(b), "gitdir: "+filepath.Join(s.dir, ".git", "worktrees")) {
		t.Fatalf("reused worktree's .git file: %q, %v", b, err)
	}

	// The reused task works as any: its result is what it wrote.
	s.ok(s.nudge("run", "--task", "t2", "--", "sh", "-c", "printf 'r\\n' > r.txt"), "run in the reused worktree")
	r := s.ok(s.nudge("diff", "t2", "--name-status"), "diff t2")
	if strings.TrimSpace(r.stdout) != "A\tr.txt" {
		t.Fatalf("t2's patch: %q, want only r.txt added", r.stdout)
	}
}

// A worktree where a process of the task still lives is never parked, and
// a parked worktree whose trusted index is gone is never reused.
func TestPoolRefusesLiveAndUnproven(t *testing.T) {
	if testing.Short() {
		t.Skip("runs without -short")
	}
	s := poolRepo(t)
	s.write(map[string]*spec{"a.txt": file("a\n")})
	s.git("add", "-A")
	s.git("commit", "-qm", "base")

	// A daemon the task left behind, no longer holding the task's lock:
	// the reaper ends it when the command ends.
	pidFile := filepath.Join(filepath.Dir(s.dir), "daemon.pid")
	s.ok(s.nudge("run", "--", "sh", "-c", "setsid sleep 30 3>&- >/dev/null 2>&1 </dev/null & echo $! > "+pidFile), "run leaving a daemon")
	if b, err := os.ReadFile(pidFile); err != nil {
		t.Fatal(err)
	} else if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
		t.Fatal(err)
	} else if syscall.Kill(pid, 0) == nil {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the daemon the task left (pid %d) outlived the run", pid)
	}
	// Any other process working in the worktree: drop refuses (even
	// with --force), so the worktree is neither parked nor removed.
	live := exec.Command("sleep", "30")
	live.Dir = filepath.Join(s.dir, ".nudgethis", "worktrees", "t1")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = live.Process.Kill(); _ = live.Wait() }()
	for _, args := range [][]string{{"drop", "t1"}, {"drop", "--force", "t1"}} {
		if r := s.nudge(args...); r.code == 0 || !strings.Contains(r.stderr, "processes still use its worktree") {
			t.Fatalf("git nudge %v with a live process in the worktree: %s", args, r)
		}
	}
	if got := s.poolList(); len(got) != 0 {
		t.Fatalf("a worktree with a live process was parked: pool = %v", got)
	}
	_ = live.Process.Kill()
	_ = live.Wait()
	s.ok(s.nudge("drop", "--force", "t1"), "drop t1 (not parked)")

	s.ok(s.nudge("run", "--", "true"), "run t2")
	s.ok(s.nudge("drop", "t2"), "drop t2")
	got := s.poolList()
	if len(got) != 1 {
		t.Fatalf("pool = %v, want t2's worktree parked", got)
	}
	// Its trusted index gone: it cannot be proved clean.
	if err := os.Remove(filepath.Join(s.dir, ".nudgethis", "pool", got[0]+".index")); err != nil {
		t.Fatal(err)
	}
	if g := s.poolList(); len(g) != 0 {
		t.Fatalf("a pool entry without its trusted index is listed: %v", g)
	}
	s.ok(s.nudge("start", "--no-setup"), "start t3")
	if _, err := os.Lstat(filepath.Join(s.dir, ".nudgethis", "pool", got[0])); err != nil {
		t.Fatalf("the unproven worktree should stay unused in the pool until pool clear: %v", err)
	}
	r := s.ok(s.nudge("pool", "clear", "--json"), "pool clear")
	if !strings.Contains(r.stdout, `"removed": 1`) {
		t.Fatalf("pool clear: %s", r.stdout)
	}
	if out := s.git("worktree", "list", "--porcelain"); strings.Contains(out, "/pool/") {
		t.Fatalf("git still lists a pooled worktree after pool clear:\n%s", out)
	}
}

// Killed (SIGKILL) at each pool fault point, the next commands find a
// state that is either discarded or recoverable: the task is failed
// (interrupted) and starts again on a clean worktree, drop works, pool
// clear leaves git no record of a pooled worktree, and the next run
// works.
func TestPoolFaultPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("fault loops run without -short")
	}
	for _, point := range []string{"pool-park", "pool-claim", "pool-reset"} {
		t.Run(point, func(t *testing.T) {
			s := poolRepo(t)
			s.write(map[string]*spec{"a.txt": file("a\n"), ".gitignore": file("*.log\n")})
			s.git("add", "-A")
			s.git("commit", "-qm", "base")
			s.ok(s.nudge("run", "--", "sh", "-c", "echo x > a.txt; echo l > x.log; echo u > u.txt"), "run t1")
			fault := "GIT_NUDGE_TEST_FAULT=" + point
			if point == "pool-park" {
				r := s.runIn(s.dir, "git-nudge", []string{"drop", "t1"}, fault)
				if !r.killed {
					t.Fatalf("drop was not killed at %s: %s", point, r)
				}
				s.ok(s.nudge("drop", "t1"), "drop again")
				s.ok(s.nudge("snapshot"), "snapshot t2") // ids as in the other branch
			} else {
				s.ok(s.nudge("drop", "t1"), "drop t1")
				r := s.runIn(s.dir, "git-nudge", []string{"start", "--no-setup"}, fault)
				if !r.killed {
					t.Fatalf("start was not killed at %s: %s", point, r)
				}
				l := s.ok(s.nudge("list"), "list")
				if !strings.Contains(l.stdout, "failed") {
					t.Fatalf("list after a kill at %s:\n%s", point, l.stdout)
				}
				// Started again, it gets a clean worktree.
				s.ok(s.nudge("start", "--no-setup", "t2"), "start t2 again")
				wt := filepath.Join(s.dir, ".nudgethis", "worktrees", "t2")
				c := s.command(wt, "git", []string{"status", "--porcelain", "--ignored", "--untracked-files=all"})
				out, err := c.Output()
				if err != nil || len(out) != 0 {
					t.Fatalf("t2's worktree after a restart: %q, %v", out, err)
				}
				if b, err := os.ReadFile(filepath.Join(wt, "a.txt")); err != nil || string(b) != "a\n" {
					t.Fatalf("t2's a.txt: %q, %v", b, err)
				}
				s.ok(s.nudge("drop", "t2"), "drop t2")
			}
			s.ok(s.nudge("pool", "clear"), "pool clear")
			s.ok(s.nudge("run", "--", "true"), "run after the kill")
			s.ok(s.nudge("drop", "t3"), "drop the last task")
			s.ok(s.nudge("pool", "clear"), "pool clear")
			if out := s.git("worktree", "list", "--porcelain"); strings.Count(out, "worktree ") != 1 {
				t.Fatalf("git still records worktrees after drop and pool clear:\n%s", out)
			}
			if out := s.git("worktree", "prune", "--dry-run", "-v"); out != "" {
				t.Fatalf("git would prune records left behind:\n%s", out)
			}
		})
	}
}

// A fresh task worktree gets its own index refreshed once made (git
// worktree add leaves every entry racily clean: the files and the index
// share a timestamp, so each later status reads every file again).
func TestFreshWorktreeIndexRefreshed(t *testing.T) {
	s := poolRepo(t)
	s.write(map[string]*spec{"a.txt": file("a\n")})
	s.git("add", "-A")
	s.git("commit", "-qm", "base")
	s.git("config", "nudge.pool", "0")
	trace := filepath.Join(filepath.Dir(s.dir), "trace")
	r := s.runIn(s.dir, "git-nudge", []string{"start", "--no-setup"}, "GIT_TRACE="+trace)
	s.ok(r, "start")
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var add, refresh int
	for i, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "built-in: git") && strings.Contains(line, " worktree add ") && add == 0 {
			add = i + 1
		}
		if strings.Contains(line, "built-in: git") && strings.Contains(line, " update-index -q --refresh") && add > 0 && refresh == 0 {
			refresh = i + 1
		}
	}
	if add == 0 || refresh == 0 {
		t.Fatalf("start did not refresh the new worktree's index after git worktree add (add at line %d, refresh at line %d)", add, refresh)
	}
	wt := filepath.Join(s.dir, ".nudgethis", "worktrees", "t1")
	if out, err := s.command(wt, "git", []string{"status", "--porcelain"}).Output(); err != nil || len(out) != 0 {
		t.Fatalf("status in the fresh worktree: %q, %v", out, err)
	}
}

// A reused worktree is reset by writing only the files that differ from
// the new snapshot: every other file keeps its inode and times, and the
// worktree's index keeps their stat data, which matches the files and is
// older than the index itself (not racily clean), so no later git status
// there reads them again.
func TestPoolReuseKeepsStatData(t *testing.T) {
	s := poolRepo(t)
	files := map[string]*spec{}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("dir/f%02d.txt", i)] = file(fmt.Sprintf("file %d\n", i))
	}
	s.write(files)
	s.git("add", "-A")
	s.git("commit", "-qm", "base")
	s.ok(s.nudge("run", "--keep-worktree", "--", "sh", "-c", "echo task >> dir/f03.txt; echo new > new.txt"), "run t1")
	t1 := filepath.Join(s.dir, ".nudgethis", "worktrees", "t1")
	type ident struct{ ino, mtime, ctime int64 }
	identOf := func(p string) ident {
		t.Helper()
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		return ident{int64(st.Ino), st.Mtim.Nano(), st.Ctim.Nano()}
	}
	before := map[string]ident{}
	for p := range files {
		before[p] = identOf(filepath.Join(t1, p))
	}
	s.ok(s.nudge("drop", "t1"), "drop t1")
	if got := s.poolList(); len(got) != 1 {
		t.Fatalf("after drop, pool = %v, want one parked worktree", got)
	}
	// The workspace moves on: one more file differs from t1's snapshot.
	s.write(map[string]*spec{"dir/f05.txt": file("changed\n")})
	s.ok(s.nudge("start", "--no-setup"), "start t2")
	if got := s.poolList(); len(got) != 0 {
		t.Fatalf("start did not take the pooled worktree: pool = %v", got)
	}
	t2 := filepath.Join(s.dir, ".nudgethis", "worktrees", "t2")
	for p := range files {
		rewritten := p == "dir/f03.txt" || p == "dir/f05.txt"
		if got := identOf(filepath.Join(t2, p)); (got != before[p]) != rewritten {
			t.Errorf("%s: identity before %+v, after the reset %+v (rewritten: want %v)", p, before[p], got, rewritten)
		}
	}
	if _, err := os.Lstat(filepath.Join(t2, "new.txt")); err == nil {
		t.Error("new.txt, left by t1, is still in the reused worktree")
	}
	admin := strings.TrimSpace(s.runIn(t2, "git", []string{"rev-parse", "--absolute-git-dir"}).stdout)
	var ist syscall.Stat_t
	if err := syscall.Stat(filepath.Join(admin, "index"), &ist); err != nil {
		t.Fatal(err)
	}
	debug := s.ok(s.runIn(t2, "git", []string{"ls-files", "--debug"}), "ls-files --debug").stdout
	checked := 0
	for _, rec := range strings.Split(debug, "\n") {
		if strings.HasPrefix(rec, " ") || rec == "" {
			continue
		}
		p := rec
		rest := debug[strings.Index(debug, p+"\n")+len(p)+1:]
		var cs, cn, ms, mn, dev, ino int64
		if _, err := fmt.Sscanf(rest, "  ctime: %d:%d\n  mtime: %d:%d\n  dev: %d\tino: %d", &cs, &cn, &ms, &mn, &dev, &ino); err != nil {
			t.Fatalf("ls-files --debug for %s: %v\n%s", p, err, rest)
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(filepath.Join(t2, p), &st); err != nil {
			t.Fatal(err)
		}
		if st.Ctim.Sec != cs || st.Ctim.Nsec != cn || st.Mtim.Sec != ms || st.Mtim.Nsec != mn || int64(st.Ino) != ino {
			t.Errorf("%s: the index's stat data does not match the file (a later status reads it again)", p)
		}
		if p != "dir/f03.txt" && p != "dir/f05.txt" && st.Mtim.Nano() >= ist.Mtim.Nano() {
			t.Errorf("%s: racily clean in the reused worktree's index", p)
		}
		checked++
	}
	if checked != len(files) {
		t.Fatalf("ls-files --debug listed %d entries, want %d", checked, len(files))
	}
}
