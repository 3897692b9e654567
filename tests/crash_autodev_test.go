//go:build unix

package tests

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/autodev"
	"github.com/nudgethis/git-nudge/internal/journal"
)

// Crash tests of git-autodev: checkpoint, restore and park are killed
// (SIGKILL, GIT_AUTODEV_TEST_FAULT) at every named point; the test checks
// that no file and no piece of work is lost, ignored files are untouched,
// the next command finds a consistent journal (every entry pinned by its
// ref, state.json readable) and carries on. docs/RELIABILITY.md lists the
// points.

// ignored are the fixture's ignored files: never committed, never touched.
var ignored = map[string]bool{"ign.log": true, "deps/x.log": true}

func notIgnored(pic map[string]*spec) map[string]*spec {
	out := map[string]*spec{}
	for p, f := range pic {
		if !ignored[p] && f != nil {
			out[p] = f
		}
	}
	return out
}

// newAutodevFixture is a repository with one checkpoint (c1) and then
// uncommitted work of every kind: an unstaged edit, a staged edit, a staged
// removal, untracked files (one executable, one in a new folder) and
// ignored files.
func newAutodevFixture(t testing.TB) *sandbox {
	s := newSandbox(t)
	s.write(map[string]*spec{
		"a.txt": file("a\n"), "b.txt": file("b\n"), "rm.txt": file("rm\n"),
		".gitignore": file("*.log\n"), "keep/k.txt": file("k\n"),
	})
	s.commitAll("base")
	s.write(map[string]*spec{"a.txt": file("a1\n"), "c1.txt": file("c1\n")})
	s.ok(s.autodev("checkpoint", "-m", "one"), "checkpoint c1")
	s.write(map[string]*spec{
		"a.txt": file("a2\n"), "b.txt": file("b2\n"), "new.txt": file("new\n"),
		"sub/deep/n.txt": file("deep\n"), "run.sh": execFile("#!/bin/sh\n"),
		"ign.log": file("ignored\n"), "deps/x.log": file("ignored too\n"),
	})
	s.git("add", "b.txt")
	s.git("rm", "-q", "rm.txt")
	return s
}

// listJSON is `git autodev restore --json`: the list, which must parse and
// whose entries must all be pinned.
func (s *sandbox) listJSON() []autodev.Entry {
	s.t.Helper()
	r := s.ok(s.autodev("restore", "--json"), "restore (list)")
	var entries []autodev.Entry
	if err := json.Unmarshal([]byte(r.stdout), &entries); err != nil {
		s.t.Fatalf("restore --json: %v\n%s", err, r.stdout)
	}
	s.checkPinned(entries)
	return entries
}

func TestCrashCheckpoint(t *testing.T) {
	for _, tc := range []struct {
		name, point string
		own         bool // the participant committed itself: a clean tree, HEAD not journaled
		committed   bool // HEAD is the checkpoint commit when killed
		pinned      bool // refs/autodev/checkpoints/c2 exists when killed
		indexed     bool // the index matches HEAD when killed
	}{
		{"after-commit", "checkpoint-after-commit", false, false, false, false},
		{"after-ref", "checkpoint-after-ref", false, true, true, false},
		{"after-index", "checkpoint-after-index", false, true, true, true},
		{"before-journal", "checkpoint-before-journal", false, true, true, true},
		{"own-commit/after-ref", "checkpoint-after-ref", true, true, true, true},
		{"own-commit/before-journal", "checkpoint-before-journal", true, true, true, true},
		// Inside the append in place: its note durable and the file
		// untouched, then half of the new entry's bytes on disk.
		{"append-marked", "journal-append-marked", false, true, true, true},
		{"append-torn", "journal-append-torn", false, true, true, true},
		{"own-commit/append-torn", "journal-append-torn", true, true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newAutodevFixture(t)
			if tc.own {
				s.commitAll("the agent's own commit")
			}
			head0, idx0, pic0 := s.git("rev-parse", "HEAD"), s.indexSig(), s.picture()
			journal0 := s.checkpoints()

			r := s.runIn(s.dir, "git-autodev", []string{"checkpoint", "-m", "two"}, autodev.FaultEnv+"="+tc.point)
			if !r.killed {
				t.Fatalf("checkpoint was not killed at %s: %s", tc.point, r)
			}
			s.checkJournals()
			pic := s.picture()
			if d := diffPictures(pic0, pic, nil); len(d) > 0 { // files, ignored ones included
				t.Fatalf("checkpoint changed files: %v", d)
			}
			if got := len(s.checkpoints()); got != len(journal0) {
				t.Fatalf("the journal has %d entries, had %d", got, len(journal0))
			}
			head := s.git("rev-parse", "HEAD")
			switch {
			case tc.own:
				if head != head0 {
					t.Fatalf("HEAD moved from the participant's commit")
				}
			case tc.committed:
				if s.git("rev-parse", "HEAD^") != head0 {
					t.Fatalf("HEAD is not a checkpoint on top of the old HEAD")
				}
				if d := diffPictures(notIgnored(pic), s.treeFiles("HEAD"), nil); len(d) > 0 {
					t.Fatalf("the checkpoint commit is not the work tree: %v", d)
				}
			default:
				if head != head0 {
					t.Fatalf("HEAD moved before the ref update")
				}
			}
			pin, err := s.tryGit("rev-parse", "--verify", "-q", "refs/autodev/checkpoints/c2")
			if tc.pinned != (err == nil) || (tc.pinned && pin != head) {
				t.Fatalf("refs/autodev/checkpoints/c2: %q %v", pin, err)
			}
			if !tc.indexed && s.indexSig() != idx0 {
				t.Fatalf("the index changed before the index step")
			}
			if tc.indexed {
				if _, err := s.tryGit("diff-index", "--cached", "--quiet", "HEAD"); err != nil {
					t.Fatalf("the index does not match HEAD: %v", err)
				}
			}

			// (c) The list is consistent, status works, and the next
			// checkpoint records the interrupted one: after it, every
			// entry is pinned, HEAD is journaled and the index and work
			// tree match HEAD.
			s.listJSON()
			s.ok(s.autodev("status"), "status")
			r = s.ok(s.autodev("checkpoint", "-m", "three"), "checkpoint after the crash")
			entries := s.listJSON()
			last := s.git("rev-parse", "HEAD")
			found := false
			for _, e := range entries {
				found = found || e.Commit == last
			}
			if !found {
				t.Fatalf("HEAD %s is not in the journal: %+v\n%s", last, entries, r)
			}
			if tc.pinned {
				c2 := false
				for _, e := range entries {
					c2 = c2 || (e.ID == "c2" && e.Commit == pin)
				}
				if !c2 || !strings.Contains(r.stdout+r.stderr, "interrupted checkpoint") {
					t.Fatalf("the pinned checkpoint c2 was not recorded or not reported: %+v\n%s", entries, r)
				}
			}
			if st := s.git("status", "--porcelain"); st != "" {
				t.Fatalf("the work tree or index does not match HEAD after the next checkpoint:\n%s", st)
			}
			if d := diffPictures(pic0, s.picture(), nil); len(d) > 0 {
				t.Fatalf("files changed: %v", d)
			}
			s.checkJournals()
			// The file itself, not only as read through its append
			// note, is whole again after the next checkpoint.
			var raw []autodev.Entry
			if err := journal.Read(filepath.Join(s.dir, ".autodev", "checkpoints.json"), &raw); err != nil || len(raw) != len(entries) {
				t.Fatalf("checkpoints.json on disk after the next checkpoint: %d entries, %v", len(raw), err)
			}
		})
	}
}

func TestCrashRestore(t *testing.T) {
	for _, tc := range []struct {
		point   string
		reset   bool // HEAD and the tracked files are the target's
		removed bool // the parked untracked files are removed
		entry   bool // the pre-restore entry is in the journal
		idle    bool // state.json says idle
	}{
		{"restore-after-park", false, false, false, false},
		{"restore-mid-reset", true, false, false, false},
		{"restore-after-journal", true, true, true, false},
		{"restore-after-state", true, true, true, true},
	} {
		t.Run(tc.point, func(t *testing.T) {
			t.Parallel()
			s := newAutodevFixture(t)
			// A second checkpoint, then more work; the run stopped in error.
			s.ok(s.autodev("checkpoint", "-m", "two"), "checkpoint c2")
			s.write(map[string]*spec{
				"a.txt": file("a3\n"), "c1.txt": file("c1 edited\n"), "u.txt": file("untracked\n"),
				"udir/u2.txt": file("untracked in a folder\n"), "ign.log": file("ignored, newer\n"),
			})
			s.git("add", "c1.txt")
			s.ok(s.autodev("park", "-m", "failed"), "park")
			parkedBranches := s.git("for-each-ref", "--format=%(refname)", "refs/heads/autodev/")
			target := s.checkpoints()[0]
			if target.ID != "c1" {
				t.Fatalf("fixture: first checkpoint is %s", target.ID)
			}
			want := s.treeFiles(target.Commit)
			head0, pic0, n0 := s.git("rev-parse", "HEAD"), s.picture(), len(s.checkpoints())
			work := notIgnored(pic0)
			untracked := map[string]bool{}
			for _, p := range strings.Split(s.git("ls-files", "-z", "--others", "--exclude-standard"), "\x00") {
				untracked[p] = p != ""
			}

			r := s.runIn(s.dir, "git-autodev", []string{"restore", "c1"}, autodev.FaultEnv+"="+tc.point)
			if !r.killed {
				t.Fatalf("restore was not killed at %s: %s", tc.point, r)
			}
			s.checkJournals()
			pic := s.picture()

			// Nothing lost: the uncommitted work is on a new
			// autodev/pre-restore-* branch, every file exactly.
			branch := s.git("for-each-ref", "--format=%(refname:short)", "refs/heads/autodev/pre-restore-*")
			if branch == "" || strings.Contains(branch, "\n") {
				t.Fatalf("want one pre-restore branch, have %q", branch)
			}
			parked := s.git("rev-parse", branch)
			if d := diffPictures(work, s.treeFiles(parked), nil); len(d) > 0 {
				t.Fatalf("%s does not hold the uncommitted work: %v", branch, d)
			}
			if s.git("rev-parse", parked+"^") != head0 {
				t.Fatalf("the parked commit's parent is not the old HEAD")
			}
			// (a) Each path holds its version from before the restore or
			// the checkpoint's; ignored files are untouched.
			for p := range ignored {
				if !sameSpec(pic[p], pic0[p]) {
					t.Fatalf("ignored file %s changed: %v -> %v", p, pic0[p], pic[p])
				}
			}
			for _, p := range sortedKeys(mergeSpecs(work, want)) {
				now := pic[p]
				switch {
				case !tc.reset && !sameSpec(now, work[p]):
					t.Errorf("%s changed before the reset: %v -> %v", p, work[p], now)
				case tc.reset && !tc.removed && untracked[p] && want[p] == nil:
					if !sameSpec(now, work[p]) {
						t.Errorf("untracked %s changed before its removal: %v -> %v", p, work[p], now)
					}
				case tc.reset && !sameSpec(now, want[p]):
					t.Errorf("%s is %v, the checkpoint has %v", p, now, want[p])
				}
			}
			head := s.git("rev-parse", "HEAD")
			if tc.reset != (head == target.Commit) {
				t.Fatalf("HEAD is %s (target %s, before %s)", head, target.Commit, head0)
			}

			// (c) The journal, the list and the state are consistent.
			entries := s.listJSON()
			if tc.entry {
				e := entries[0] // newest first
				if len(entries) != n0+1 || e.Type != autodev.TypePreRestore || e.Commit != parked {
					t.Fatalf("want a pre-restore entry for %s first: %+v", parked, entries)
				}
			} else if len(entries) != n0 {
				t.Fatalf("the journal has %d entries, had %d", len(entries), n0)
			}
			st := readFile(t, s.dir+"/.autodev/state.json")
			if tc.idle != strings.Contains(st, `"status": "idle"`) {
				t.Fatalf("state.json:\n%s", st)
			}
			// status names a parked branch the journal does not record.
			st = s.ok(s.autodev("status"), "status").stdout
			named := strings.Contains(st, "Parked work not in the checkpoint list: "+branch+" ("+parked[:7]+")")
			if named == tc.entry {
				t.Fatalf("status names %s: %v; the journal records it: %v\n%s", branch, named, tc.entry, st)
			}

			// Restoring again finishes the job; the first parking stays.
			r = s.ok(s.autodev("restore", "c1"), "restore again")
			if s.git("rev-parse", "HEAD") != target.Commit {
				t.Fatalf("HEAD is not c1 after the second restore")
			}
			final := s.picture()
			if d := diffPictures(want, notIgnored(final), nil); len(d) > 0 {
				t.Fatalf("the tree is not c1's after the second restore: %v", d)
			}
			if s.git("rev-parse", branch) != parked {
				t.Fatalf("%s moved", branch)
			}
			for _, b := range strings.Split(parkedBranches, "\n") {
				if _, err := s.tryGit("rev-parse", "--verify", "-q", b); err != nil {
					t.Fatalf("%s is gone", b)
				}
			}
			// Once the tree was reset and journaled, the second restore
			// finds HEAD there and does nothing; otherwise it restores
			// and notes it in memory.md.
			already := strings.HasPrefix(r.stdout, "Already at")
			if already != tc.entry {
				t.Fatalf("second restore: %s", r)
			}
			if !already && !strings.Contains(readFile(t, s.dir+"/.autodev/memory.md"), "RESTORE: ") {
				t.Fatalf("memory.md has no RESTORE line")
			}
			s.listJSON()
			s.checkJournals()
		})
	}
}

func mergeSpecs(a, b map[string]*spec) map[string]*spec {
	out := map[string]*spec{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func TestCrashPark(t *testing.T) {
	t.Parallel()
	s := newAutodevFixture(t)
	head0, idx0, pic0 := s.git("rev-parse", "HEAD"), s.indexSig(), s.picture()
	st0 := readFile(t, s.dir+"/.autodev/state.json")

	r := s.runIn(s.dir, "git-autodev", []string{"park", "-m", "broken"}, autodev.FaultEnv+"=park-after-branch")
	if !r.killed {
		t.Fatalf("park was not killed: %s", r)
	}
	s.checkJournals()
	if d := diffPictures(pic0, s.picture(), nil); len(d) > 0 {
		t.Fatalf("park changed files: %v", d)
	}
	if s.indexSig() != idx0 || s.git("rev-parse", "HEAD") != head0 {
		t.Fatalf("park changed the index or HEAD")
	}
	branch := s.git("for-each-ref", "--format=%(refname:short)", "refs/heads/autodev/parked-*")
	if branch == "" || strings.Contains(branch, "\n") {
		t.Fatalf("want one parked branch, have %q", branch)
	}
	if d := diffPictures(notIgnored(pic0), s.treeFiles(branch), nil); len(d) > 0 {
		t.Fatalf("%s does not hold the work tree: %v", branch, d)
	}
	if got := readFile(t, s.dir+"/.autodev/state.json"); got != st0 {
		t.Fatalf("state.json changed before the state step:\n%s", got)
	}
	s.ok(s.autodev("status"), "status")
	s.listJSON()
	// Parking again works and keeps the first branch.
	s.ok(s.autodev("park", "-m", "again"), "park again")
	if n := len(strings.Split(s.git("for-each-ref", "--format=%(refname)", "refs/heads/autodev/parked-*"), "\n")); n != 2 {
		t.Fatalf("want two parked branches, have %d", n)
	}
	if !strings.Contains(readFile(t, s.dir+"/.autodev/state.json"), `"status": "error"`) {
		t.Fatalf("state.json does not say error")
	}
	s.checkJournals()
}

// A run after a checkpoint killed past its ref transaction records that
// checkpoint before its baseline, and says so.
func TestCrashCheckpointThenRun(t *testing.T) {
	t.Parallel()
	s := newAutodevFixture(t)
	r := s.runIn(s.dir, "git-autodev", []string{"checkpoint", "-m", "two"}, autodev.FaultEnv+"=checkpoint-after-ref")
	if !r.killed {
		t.Fatalf("checkpoint was not killed: %s", r)
	}
	head := s.git("rev-parse", "HEAD")
	r = s.ok(s.autodev("run", "--", "true"), "run")
	if !strings.Contains(r.stderr, "recorded c2") || !strings.Contains(r.stderr, "interrupted checkpoint") {
		t.Fatalf("run does not report the recorded checkpoint: %s", r)
	}
	entries := s.listJSON()
	if entries[0].ID != "c2" || entries[0].Commit != head || entries[0].Label != "thread — two" {
		t.Fatalf("the newest entry is not the interrupted checkpoint: %+v", entries[0])
	}
	if st := s.git("status", "--porcelain"); st != "" {
		t.Fatalf("index or work tree do not match HEAD:\n%s", st)
	}
	s.checkJournals()
}

// Restoring a pre-restore entry (undoing a restore) killed after the reset
// to the parked commit, before HEAD went back to its parent, and killed
// after HEAD and the index were back: nothing is lost, and running the same
// restore again ends with HEAD at the old HEAD and the parked work
// uncommitted, work tree and index as they were.
func TestCrashRestoreUndo(t *testing.T) {
	for _, point := range []string{"restore-undo-after-reset", "restore-mid-reset"} {
		t.Run(point, func(t *testing.T) {
			t.Parallel()
			s := newAutodevFixture(t)
			s.ok(s.autodev("checkpoint", "-m", "two"), "checkpoint c2")
			// A partially staged file, so the index differs from the work tree.
			s.write(map[string]*spec{"a.txt": file("staged\n")})
			s.git("add", "a.txt")
			s.write(map[string]*spec{"a.txt": file("worktree\n"), "u.txt": file("untracked\n")})
			head0 := s.git("rev-parse", "HEAD")
			work := notIgnored(s.picture())
			index0 := s.git("ls-files", "-s")
			status0 := s.git("status", "--porcelain", "--untracked-files=all")
			s.ok(s.autodev("restore", "c1"), "restore c1")
			entries := s.listJSON()
			undo := entries[0]
			if undo.Type != autodev.TypePreRestore {
				t.Fatalf("newest entry is %+v", undo)
			}

			r := s.runIn(s.dir, "git-autodev", []string{"restore", undo.ID}, autodev.FaultEnv+"="+point)
			if !r.killed {
				t.Fatalf("restore %s was not killed at %s: %s", undo.ID, point, r)
			}
			s.checkJournals()
			if d := diffPictures(work, notIgnored(s.picture()), nil); len(d) > 0 {
				t.Fatalf("after the kill the work tree is not the parked work: %v", d)
			}
			s.ok(s.autodev("restore", undo.ID), "restore again")
			if got := s.git("rev-parse", "HEAD"); got != head0 {
				t.Fatalf("HEAD is %s, want the old HEAD %s", got, head0)
			}
			if d := diffPictures(work, notIgnored(s.picture()), nil); len(d) > 0 {
				t.Fatalf("the work tree is not the parked work: %v", d)
			}
			if got := s.git("ls-files", "-s"); got != index0 {
				t.Fatalf("index:\n%s\nwant:\n%s", got, index0)
			}
			if got := s.git("status", "--porcelain", "--untracked-files=all"); got != status0 {
				t.Fatalf("status:\n%s\nwant:\n%s", got, status0)
			}
			for p := range ignored {
				if _, err := s.tryGit("ls-files", "--error-unmatch", p); err == nil {
					t.Fatalf("ignored %s is tracked", p)
				}
			}
			s.listJSON()
			s.checkJournals()
		})
	}
}
