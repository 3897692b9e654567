//go:build unix

package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/autodev"
	"github.com/nudgethis/git-nudge/internal/nudge"
)

// Concurrency tests: commands of one workspace started at the same moment
// serialize on the workspace lock and never lose or mix anything.

// startAll starts every command at once and waits for all of them.
func startAll(t testing.TB, cmds ...*exec.Cmd) []res {
	t.Helper()
	outs := make([][2]*bytes.Buffer, len(cmds))
	for i, c := range cmds {
		outs[i] = [2]*bytes.Buffer{{}, {}}
		c.Stdout, c.Stderr = outs[i][0], outs[i][1]
	}
	errs := make([]error, len(cmds))
	for i, c := range cmds {
		errs[i] = c.Start()
	}
	results := make([]res, len(cmds))
	for i, c := range cmds {
		if errs[i] == nil {
			errs[i] = c.Wait()
		}
		results[i] = finish(c, outs[i][0], outs[i][1], errs[i])
	}
	return results
}

// Two applies of different tasks that change the same file, started
// together: one wins, the other is refused with nothing changed, and the
// file is the winner's.
func TestConcurrentApplySameFile(t *testing.T) {
	for round := 0; round < 3; round++ {
		t.Run(fmt.Sprint("round", round), func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			s.write(map[string]*spec{"a.txt": file("a\n"), "b.txt": file("b\n")})
			head := s.commitAll("base")
			r1 := s.commitTree(head, map[string]*spec{"a.txt": file("from t1\n"), "one.txt": file("1\n")}, "t1")
			r2 := s.commitTree(head, map[string]*spec{"a.txt": file("from t2\n"), "b.txt": nil, "two/t.txt": file("2\n")}, "t2")
			s.mktask("t1", "HEAD", r1)
			s.mktask("t2", "HEAD", r2)
			idx0 := s.indexSig()

			rs := startAll(t, s.command(s.dir, "git-nudge", []string{"apply", "t1"}), s.command(s.dir, "git-nudge", []string{"apply", "t2"}))
			win, lose := -1, -1
			for i, r := range rs {
				switch r.code {
				case 0:
					win = i
				case 1:
					lose = i
				}
			}
			if win < 0 || lose < 0 {
				t.Fatalf("want one success and one refusal:\n%s\n%s", rs[0], rs[1])
			}
			winner, loser := fmt.Sprintf("t%d", win+1), fmt.Sprintf("t%d", lose+1)
			if !strings.Contains(rs[lose].stderr, "a.txt was edited since the snapshot") || !strings.Contains(rs[lose].stderr, "nothing was changed") {
				t.Fatalf("%s's refusal does not name a.txt: %s", loser, rs[lose])
			}
			pic := s.picture()
			wantA := "from " + winner + "\n"
			if pic["a.txt"] == nil || pic["a.txt"].data != wantA {
				t.Fatalf("a.txt is %v, want the winner's %q", pic["a.txt"], wantA)
			}
			// The loser's other changes are absent, the winner's present.
			if winner == "t1" {
				if pic["one.txt"] == nil || pic["b.txt"] == nil || pic["two/t.txt"] != nil {
					t.Fatalf("work tree after t1 won: %v", sortedKeys(pic))
				}
			} else if pic["one.txt"] != nil || pic["b.txt"] != nil || pic["two/t.txt"] == nil {
				t.Fatalf("work tree after t2 won: %v", sortedKeys(pic))
			}
			if st := s.task(winner).State; st != nudge.StateApplied {
				t.Fatalf("%s is %s", winner, st)
			}
			if st := s.task(loser).State; st != nudge.StateReady {
				t.Fatalf("%s is %s", loser, st)
			}
			if s.indexSig() != idx0 {
				t.Fatalf("the index changed")
			}
			if l := leftovers(pic); len(l) > 0 {
				t.Fatalf("leftovers: %v", l)
			}
			s.checkJournals()
		})
	}
}

// checkpointOut is `git autodev checkpoint --json`.
type checkpointOut struct {
	Outcome    string         `json:"outcome"`
	Checkpoint *autodev.Entry `json:"checkpoint"`
}

// Five processes checkpoint the same worktree in a loop, each writing a
// file of its own before every checkpoint: every checkpoint either records
// new work or finds it recorded, ids never collide, no entry is lost from
// checkpoints.json, every entry is pinned, and the last commit holds every
// file.
func TestConcurrentCheckpoints(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.write(map[string]*spec{"a.txt": file("a\n"), ".gitignore": file("*.log\n")})
	base := s.commitAll("base")
	const procs, rounds = 5, 3
	var mu sync.Mutex
	var reported []autodev.Entry
	var wg sync.WaitGroup
	for p := 0; p < procs; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for k := 0; k < rounds; k++ {
				name := fmt.Sprintf("w%d_%d.txt", p, k)
				s.write(map[string]*spec{name: file(name + "\n")})
				r := s.runIn(s.dir, "git-autodev", []string{"checkpoint", "-m", "from " + name, "--json"})
				var out checkpointOut
				if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil {
					t.Errorf("checkpoint %s: %s", name, r)
					return
				}
				if out.Outcome == string(autodev.Committed) {
					mu.Lock()
					reported = append(reported, *out.Checkpoint)
					mu.Unlock()
				} else if out.Outcome != string(autodev.AlreadyRecorded) {
					t.Errorf("checkpoint %s: outcome %s", name, out.Outcome)
				}
			}
		}(p)
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	entries := s.checkpoints()
	s.checkPinned(entries)
	if len(entries) != len(reported) {
		t.Fatalf("%d checkpoints reported, %d in the journal", len(reported), len(entries))
	}
	inJournal := map[string]string{}
	for _, e := range entries {
		inJournal[e.ID] = e.Commit
	}
	for _, e := range reported {
		if inJournal[e.ID] != e.Commit {
			t.Fatalf("reported %s (%s) is not in the journal as such", e.ID, e.Commit)
		}
		if _, err := s.tryGit("merge-base", "--is-ancestor", e.Commit, "HEAD"); err != nil {
			t.Fatalf("checkpoint %s is not in HEAD's history", e.ID)
		}
	}
	// History is a line of checkpoints on top of base, one per entry.
	if n := s.git("rev-list", "--count", base+"..HEAD"); n != fmt.Sprint(len(entries)) {
		t.Fatalf("%s commits on top of base, %d entries", n, len(entries))
	}
	if st := s.git("status", "--porcelain"); st != "" {
		t.Fatalf("work left uncommitted:\n%s", st)
	}
	tree := s.treeFiles("HEAD")
	for p := 0; p < procs; p++ {
		for k := 0; k < rounds; k++ {
			name := fmt.Sprintf("w%d_%d.txt", p, k)
			if tree[name] == nil || tree[name].data != name+"\n" {
				t.Fatalf("%s is not in the last checkpoint", name)
			}
		}
	}
	s.checkJournals()
}

// Five linked worktrees checkpoint at once: ids come from create-only refs
// shared by the repository, so the five journals never share an id, and
// each worktree's branch, journal entry and pin agree.
func TestConcurrentCheckpointWorktrees(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.write(map[string]*spec{"a.txt": file("a\n")})
	s.commitAll("base")
	var cmds []*exec.Cmd
	var dirs []string
	for i := 0; i < 5; i++ {
		dir := filepath.Join(filepath.Dir(s.dir), fmt.Sprintf("wt%d", i))
		s.git("worktree", "add", "-q", "-b", fmt.Sprintf("b%d", i), dir)
		s.write(map[string]*spec{fmt.Sprintf("../wt%d/a.txt", i): file(fmt.Sprintf("a %d\n", i))})
		dirs = append(dirs, dir)
		cmds = append(cmds, s.command(dir, "git-autodev", []string{"checkpoint", "-m", fmt.Sprint("wt", i)}))
	}
	seen := map[string]string{}
	for i, r := range startAll(t, cmds...) {
		if r.code != 0 {
			t.Fatalf("worktree %d: %s", i, r)
		}
	}
	for i, dir := range dirs {
		w := &sandbox{t: t, dir: dir, env: s.env}
		entries := w.checkpoints()
		w.checkPinned(entries)
		if len(entries) != 1 {
			t.Fatalf("worktree %d has %d entries", i, len(entries))
		}
		e := entries[0]
		if other, dup := seen[e.ID]; dup {
			t.Fatalf("worktrees %s and %d both got %s", other, i, e.ID)
		}
		seen[e.ID] = fmt.Sprint(i)
		if tip := w.git("rev-parse", "HEAD"); tip != e.Commit {
			t.Fatalf("worktree %d: HEAD %s, entry %s", i, tip, e.Commit)
		}
	}
}

// A restore and a checkpoint started together serialize: both succeed, in
// either order, HEAD ends on the restored checkpoint with its exact tree,
// and the work that was in the tree is held by the newest pre-restore
// entry (the parked commit, or the checkpoint that came first).
func TestConcurrentRestoreCheckpoint(t *testing.T) {
	for round := 0; round < 3; round++ {
		t.Run(fmt.Sprint("round", round), func(t *testing.T) {
			t.Parallel()
			s := newAutodevFixture(t)
			target := s.checkpoints()[0]
			work := notIgnored(s.picture())
			rs := startAll(t,
				s.command(s.dir, "git-autodev", []string{"checkpoint", "-m", "racing"}),
				s.command(s.dir, "git-autodev", []string{"restore", target.ID}))
			for _, r := range rs {
				if r.code != 0 {
					t.Fatalf("%s", r)
				}
			}
			if head := s.git("rev-parse", "HEAD"); head != target.Commit {
				t.Fatalf("HEAD is %s, want %s", head, target.Commit)
			}
			if d := diffPictures(s.treeFiles(target.Commit), notIgnored(s.picture()), nil); len(d) > 0 {
				t.Fatalf("the tree is not the checkpoint's: %v", d)
			}
			entries := s.listJSON()
			var pre *autodev.Entry
			for i := range entries {
				if entries[i].Type == autodev.TypePreRestore {
					pre = &entries[i]
					break
				}
			}
			if pre == nil {
				t.Fatalf("no pre-restore entry: %+v", entries)
			}
			if d := diffPictures(work, s.treeFiles(pre.Commit), nil); len(d) > 0 {
				t.Fatalf("the pre-restore entry %s does not hold the work: %v", pre.ID, d)
			}
			if st := readFile(t, s.dir+"/.autodev/state.json"); !strings.Contains(st, `"status": "idle"`) {
				t.Fatalf("state.json:\n%s", st)
			}
			s.checkJournals()
		})
	}
}

// applySpan is how long an uninterrupted apply of the 300-file patch takes
// here: the race tests start the other command at fractions of it, so
// that it lands in every phase of the apply, before, during and after.
func applySpan(t testing.TB) []time.Duration {
	f := newBigPatch(t)
	start := time.Now()
	f.s.ok(f.s.nudge("apply", "t1"), "apply")
	span := time.Since(start)
	var delays []time.Duration
	for _, k := range []int{0, 2, 4, 6, 8} {
		delays = append(delays, span*time.Duration(k)/10)
	}
	return delays
}

// startStaggered starts a, then b after delay, and waits for both.
func startStaggered(t testing.TB, delay time.Duration, a, b *exec.Cmd) (res, res) {
	t.Helper()
	var ob, eb [2]bytes.Buffer
	a.Stdout, a.Stderr = &ob[0], &eb[0]
	b.Stdout, b.Stderr = &ob[1], &eb[1]
	errA := a.Start()
	time.Sleep(delay)
	errB := b.Start()
	if errA == nil {
		errA = a.Wait()
	}
	if errB == nil {
		errB = b.Wait()
	}
	return finish(a, &ob[0], &eb[0], errA), finish(b, &ob[1], &eb[1], errB)
}

// allOrNone fails unless files holds every file of the 300-file patch in
// its before version or every one in its after version, and no temp file
// of an apply: a commit or a tree that caught an apply half-way is torn.
func (f *bigPatch) allOrNone(t testing.TB, what string, files map[string]*spec) int {
	t.Helper()
	for p := range files {
		if strings.HasPrefix(filepath.Base(p), ".nudge-") {
			t.Fatalf("%s holds an apply's temp file %s", what, p)
		}
	}
	_, n := f.where(t, files)
	if n != 0 && n != len(f.after) {
		t.Fatalf("%s is torn: %d of the patch's %d files in their after version", what, n, len(f.after))
	}
	return n
}

// noRawGit fails when a command's output is git's own complaint about a
// file that vanished or a lock, the signs of two tools in one tree at once.
func noRawGit(t testing.TB, what string, r res) {
	t.Helper()
	for _, bad := range []string{"unable to stat", "index.lock", "unable to index", "does not exist and --remove not passed"} {
		if strings.Contains(r.stderr, bad) {
			t.Fatalf("%s ran into another command: %s", what, r)
		}
	}
}

// git nudge apply and git autodev checkpoint of one work tree, started
// together or a little apart, serialize on the work-tree lock they share:
// the checkpoint commits the tree before the apply or after it, never
// half of the patch or an apply's temp file.
func TestConcurrentApplyCheckpoint(t *testing.T) {
	for round, delay := range applySpan(t) {
		t.Run(fmt.Sprint("round", round), func(t *testing.T) {
			f := newBigPatch(t)
			s := f.s
			ra, rc := startStaggered(t, delay,
				s.command(s.dir, "git-nudge", []string{"apply", "t1"}),
				s.command(s.dir, "git-autodev", []string{"checkpoint", "-m", "racing", "--json"}))
			noRawGit(t, "apply", ra)
			noRawGit(t, "checkpoint", rc)
			if rc.code != 0 {
				t.Fatalf("checkpoint: %s", rc)
			}
			var out checkpointOut
			if err := json.Unmarshal([]byte(rc.stdout), &out); err != nil || out.Checkpoint == nil {
				t.Fatalf("checkpoint --json: %v\n%s", err, rc)
			}
			n := f.allOrNone(t, "checkpoint "+out.Checkpoint.ID, s.treeFiles(out.Checkpoint.Commit))
			switch ra.code {
			case 0:
				f.allOrNone(t, "the work tree", s.picture())
			case 1:
				if !strings.Contains(ra.stderr, "nothing was changed") {
					t.Fatalf("apply refused without saying the tree is untouched: %s", ra)
				}
				if n != 0 {
					t.Fatalf("apply refused, yet the checkpoint holds the patch")
				}
			default:
				t.Fatalf("apply: %s", ra)
			}
			s.checkJournals()
		})
	}
}

// git nudge apply and git autodev restore of one work tree, started
// together or a little apart: the restore parks the tree before the apply
// or after it (never half of it), the apply lands on the restored tree or
// is refused, and neither meets the other's files half-way.
func TestConcurrentApplyRestore(t *testing.T) {
	for round, delay := range applySpan(t) {
		t.Run(fmt.Sprint("round", round), func(t *testing.T) {
			f := newBigPatch(t)
			s := f.s
			s.ok(s.autodev("checkpoint", "-m", "before the apply"), "checkpoint")
			target := s.checkpoints()[0]
			s.write(map[string]*spec{"later.txt": file("written after the checkpoint\n")})
			ra, rr := startStaggered(t, delay,
				s.command(s.dir, "git-nudge", []string{"apply", "t1"}),
				s.command(s.dir, "git-autodev", []string{"restore", target.ID}))
			noRawGit(t, "apply", ra)
			noRawGit(t, "restore", rr)
			if rr.code != 0 {
				t.Fatalf("restore: %s", rr)
			}
			if head := s.git("rev-parse", "HEAD"); head != target.Commit {
				t.Fatalf("HEAD is %s, want %s", head, target.Commit)
			}
			var pre *autodev.Entry
			for _, e := range s.listJSON() {
				if e.Type == autodev.TypePreRestore {
					e := e
					pre = &e
					break
				}
			}
			if pre == nil {
				t.Fatalf("no pre-restore entry after the restore: %s", rr)
			}
			parked := s.treeFiles(pre.Commit)
			if parked["later.txt"] == nil {
				t.Fatalf("the parked commit lacks later.txt")
			}
			nParked := f.allOrNone(t, "the parked commit", parked)
			nTree := f.allOrNone(t, "the work tree", s.picture())
			switch ra.code {
			case 0:
				// Applied before the restore (parked, then reset away) or
				// after it (on the restored tree), not both.
				if (nParked == 0) == (nTree == 0) {
					t.Fatalf("apply succeeded: the patch is in the parked commit (%d) and in the tree (%d)", nParked, nTree)
				}
			case 1:
				if !strings.Contains(ra.stderr, "nothing was changed") || nParked+nTree != 0 {
					t.Fatalf("apply refused: %s (parked %d, tree %d)", ra, nParked, nTree)
				}
			default:
				t.Fatalf("apply: %s", ra)
			}
			s.checkJournals()
		})
	}
}
