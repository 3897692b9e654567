//go:build unix

package tests

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/nudge"
)

// CrashLoopsEnv raises the number of iterations of TestCrashRandomKill.
const CrashLoopsEnv = "GIT_NUDGE_CRASH_LOOPS"

// TestCrashRandomKill applies and undoes a 300-file patch again and again,
// killing git-nudge and every git process it started (SIGKILL to the
// process group) after a random delay. After each run, whatever the
// moment of the kill: each of the 300 files is exactly its before or its
// after version, every other file and the index are untouched, and the
// record says ready, applied or undone (matching the files), or the run
// was cut mid-way and the next command makes it Recovery required and
// reports each file and every leftover temp file as it is. The test then
// resolves such a task the way a person would (files back from git,
// leftovers deleted) and carries on with a fresh task.
func TestCrashRandomKill(t *testing.T) {
	if testing.Short() {
		t.Skip("the random-kill loop is skipped with -short")
	}
	t.Parallel()
	loops := 50
	if raceBuild {
		// Four times slower under -race, and the race detector looks at
		// the processes, not at when they die: fewer rounds suffice.
		loops = 12
	}
	if v := os.Getenv(CrashLoopsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q is not a positive number", CrashLoopsEnv, v)
		}
		loops = n
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d (%d iterations)", seed, loops)
	rng := rand.New(rand.NewPCG(seed, seed>>7))

	f := newBigPatch(t)
	s := f.s
	pic0, idx0 := s.picture(), s.indexSig()

	// One apply and undo without a kill, to learn how long a run takes.
	start := time.Now()
	s.ok(s.nudge("apply", "t1"), "apply")
	span := time.Since(start)
	s.ok(s.nudge("undo", "t1"), "undo")

	id, next := "t1", 2
	counts := map[string]int{}
	for i := 0; i < loops; i++ {
		verb := "apply"
		if s.task(id).State == nudge.StateApplied {
			verb = "undo"
		}
		delay := time.Duration(rng.Int64N(int64(span)*5/4 + 1))
		r := s.killAfter(delay, "git-nudge", verb, id)
		s.checkJournals()
		pic := s.picture()
		which, nAfter := f.where(t, pic)
		if d := diffPictures(pic0, pic, f.ownedBy); len(d) > 0 {
			t.Fatalf("iteration %d (%s killed after %v): files outside the patch changed: %v", i, verb, delay, d)
		}
		if s.indexSig() != idx0 {
			t.Fatalf("iteration %d: the index changed", i)
		}
		left := leftovers(pic)
		st := s.task(id).State
		counts[verb+" "+st]++
		switch st {
		case nudge.StateReady, nudge.StateUndone, nudge.StateApplied:
			want := 0
			if st == nudge.StateApplied {
				want = len(f.after)
			}
			if nAfter != want || len(left) > 0 {
				t.Fatalf("iteration %d (%s, %s): record says %s but %d files hold their after version, leftovers %v", i, verb, r, st, nAfter, left)
			}
			continue
		case nudge.StateApplying, nudge.StateUndoing:
		default:
			t.Fatalf("iteration %d: the record says %s", i, st)
		}

		// Cut mid-way: the next command says so, precisely.
		rep := s.recovery(id)
		if rep.State != nudge.StateRecoveryRequired {
			t.Fatalf("iteration %d: recover reports %s", i, rep.State)
		}
		for _, rf := range rep.Files {
			if rf.Matches != which[rf.Path] {
				t.Fatalf("iteration %d: recover says %s matches %s; it holds its %s version", i, rf.Path, rf.Matches, which[rf.Path])
			}
		}
		if len(rep.Files) != len(f.after) {
			t.Fatalf("iteration %d: recover lists %d files", i, len(rep.Files))
		}
		if strings.Join(rep.Leftovers, "\n") != strings.Join(left, "\n") {
			t.Fatalf("iteration %d: recover reports leftovers %v, the work tree has %v", i, rep.Leftovers, left)
		}
		if i%5 == 0 { // a retry is refused (every fifth time: it costs a run)
			s.refused(s.nudge(verb, id), "retry after the kill", "needs recovery")
		}

		// Resolve by hand and start again with a fresh task.
		s.write(f.before)
		for _, l := range left {
			if err := os.Remove(filepath.Join(s.dir, l)); err != nil {
				t.Fatal(err)
			}
		}
		f.pruneEmpty(t)
		if d := diffPictures(pic0, s.picture(), nil); len(d) > 0 {
			t.Fatalf("iteration %d: resolving did not restore the work tree: %v", i, d)
		}
		id = "t" + strconv.Itoa(next)
		next++
		s.mktask(id, "HEAD", f.result)
	}
	keys := sortedKeys(counts)
	var summary []string
	for _, k := range keys {
		summary = append(summary, fmt.Sprintf("%s: %d", k, counts[k]))
	}
	t.Logf("run took %v uninterrupted; outcomes (verb, state left): %s", span, strings.Join(summary, ", "))
}

// killAfter runs name args in the work tree, in a process group of its
// own, and SIGKILLs the whole group after delay unless it ended before.
func (s *sandbox) killAfter(delay time.Duration, name string, args ...string) res {
	s.t.Helper()
	c := s.command(s.dir, name, args)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout, stderr strings.Builder
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Start(); err != nil {
		s.t.Fatal(err)
	}
	pid := c.Process.Pid
	timer := time.AfterFunc(delay, func() { _ = syscall.Kill(-pid, syscall.SIGKILL) })
	err := c.Wait()
	timer.Stop()
	// A git child can outlive its parent for a moment; make sure none of
	// the group is left before the work tree is looked at.
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	r := res{stdout: stdout.String(), stderr: stderr.String()}
	if err != nil {
		r.code = -1
		if ws, ok := c.ProcessState.Sys().(syscall.WaitStatus); ok {
			r.killed = ws.Signaled()
			if ws.Exited() {
				r.code = ws.ExitStatus()
			}
		}
	}
	return r
}

// bigPatch is a repository with a ready task t1 whose patch touches 300
// files: 150 changed (one in ten also becomes executable), 75 removed (some
// folders become empty) and 75 added (in new folders), beside 60 unrelated
// files with local edits, a staged edit, untracked and ignored files.
type bigPatch struct {
	s             *sandbox
	result        string
	before, after map[string]*spec
	dirs          []string // folders the patch creates or empties
}

func newBigPatch(t testing.TB) *bigPatch {
	s := newFastSandbox(t)
	base := map[string]*spec{".gitignore": file("*.log\nbuild/\n")}
	after := map[string]*spec{}
	body := func(i int, tag string) string {
		return strings.Repeat(fmt.Sprintf("line %d of file %d (%s)\n", i%7, i, tag), 1+i%13)
	}
	dirSet := map[string]bool{}
	for i := 0; i < 300; i++ {
		switch {
		case i < 150:
			p := fmt.Sprintf("src/d%02d/f%03d.txt", i%10, i)
			base[p] = file(body(i, "base"))
			after[p] = &spec{data: body(i, "task"), exec: i%10 == 0}
		case i < 225:
			p := fmt.Sprintf("gone/d%02d/f%03d.txt", i%5, i)
			base[p] = file(body(i, "base"))
			after[p] = nil
			dirSet[fmt.Sprintf("gone/d%02d", i%5)] = true
		default:
			p := fmt.Sprintf("new/d%02d/sub/f%03d.txt", i%5, i)
			after[p] = file(body(i, "new"))
			dirSet[fmt.Sprintf("new/d%02d/sub", i%5)] = true
			dirSet[fmt.Sprintf("new/d%02d", i%5)] = true
		}
	}
	dirSet["new"], dirSet["gone"] = true, true
	for i := 0; i < 60; i++ {
		base[fmt.Sprintf("src/d%02d/other%02d.txt", i%10, i)] = file(body(i, "other"))
	}
	s.write(base)
	head := s.commitAll("base")
	result := s.commitTree(head, after, "task")
	before := map[string]*spec{}
	for p := range after {
		before[p] = base[p]
	}
	s.write(map[string]*spec{"src/d01/other01.txt": file("local edit\n"), "src/d02/other02.txt": file("staged edit\n")})
	s.git("add", "src/d02/other02.txt")
	s.write(map[string]*spec{
		"src/d02/other02.txt": file("and unstaged\n"), "mine.txt": file("untracked\n"),
		"build/out.o": file("ignored\n"), "src/d03/x.log": file("ignored\n"),
	})
	s.mktask("t1", "HEAD", result)
	dirs := sortedKeys(dirSet)
	return &bigPatch{s: s, result: result, before: before, after: after, dirs: dirs}
}

// ownedBy reports whether p is the patch's: one of its files, a folder
// it creates or empties, or a temp file an interrupted write left.
func (f *bigPatch) ownedBy(p string) bool {
	if _, ok := f.after[p]; ok {
		return true
	}
	if strings.HasPrefix(filepath.Base(p), ".nudge-") {
		return true
	}
	d := strings.TrimSuffix(p, "/")
	i := sort.SearchStrings(f.dirs, d)
	return i < len(f.dirs) && f.dirs[i] == d
}

func (f *bigPatch) where(t testing.TB, pic map[string]*spec) (map[string]string, int) {
	t.Helper()
	which := map[string]string{}
	n := 0
	for p, a := range f.after {
		switch now := pic[p]; {
		case sameSpec(now, a):
			which[p] = "after"
			n++
		case sameSpec(now, f.before[p]):
			which[p] = "before"
		default:
			t.Fatalf("%s holds %v: neither its before (%v) nor its after (%v) version", p, now, f.before[p], a)
		}
	}
	return which, n
}

// pruneEmpty removes the folders of the patch left empty, deepest first.
func (f *bigPatch) pruneEmpty(t testing.TB) {
	dirs := append([]string{}, f.dirs...)
	sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
	for _, d := range dirs {
		p := filepath.Join(f.s.dir, d)
		if ents, err := os.ReadDir(p); err == nil && len(ents) == 0 {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}
	}
}
