//go:build unix

package tests

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/nudge"
)

// Crash tests of git-nudge: apply, undo and save are killed (SIGKILL,
// GIT_NUDGE_TEST_FAULT) at every named point, then the test checks that
// (a) every file of the patch is exactly its before or its after version,
// (b) every other file, ignored files and the user's index are untouched,
// (c) the next command reports the state honestly, and (d) every journal
// still parses. docs/RELIABILITY.md lists the points.

// nudgeFixture is a repository with a ready task t1 whose patch changes,
// adds and removes files (in new, deep and pruned folders, with a mode-only
// change, CRLF content and a unicode path with spaces), plus unrelated
// local work: an unstaged edit, a staged edit with a further unstaged one,
// an untracked file and ignored files.
type nudgeFixture struct {
	s             *sandbox
	head          string
	before, after map[string]*spec // the patch's paths (nil: no file)
}

func newNudgeFixture(t testing.TB) *nudgeFixture {
	s := newSandbox(t)
	base := map[string]*spec{
		"a.txt":                  file("a\n"),
		"b.txt":                  file("b\n"),
		"gone.txt":               file("gone\n"),
		"old/only.txt":           file("only\n"),
		"run.sh":                 file("#!/bin/sh\necho hi\n"),
		"crlf.txt":               file("x\r\ny\r\n"),
		"dir with space/ünï.txt": file("spaces\n"),
		"u.txt":                  file("u\n"),
		"staged.txt":             file("s\n"),
		".gitignore":             file("build/\n*.log\n"),
	}
	s.write(base)
	head := s.commitAll("base")
	after := map[string]*spec{
		"a.txt":                  file("a changed\n"),
		"b.txt":                  file("b changed\n"),
		"gone.txt":               nil,
		"old/only.txt":           nil,
		"run.sh":                 execFile("#!/bin/sh\necho hi\n"),
		"crlf.txt":               file("x\r\nz\r\n"),
		"dir with space/ünï.txt": file("spaces changed\n"),
		"new.txt":                file("new\n"),
		"deep/er/new.txt":        file("deep\n"),
	}
	result := s.commitTree(head, after, "task")
	before := map[string]*spec{}
	for p := range after {
		before[p] = base[p]
	}
	s.write(map[string]*spec{"u.txt": file("u local\n"), "staged.txt": file("s staged\n")})
	s.git("add", "staged.txt")
	s.write(map[string]*spec{
		"staged.txt":    file("s worktree\n"),
		"untracked.txt": file("mine\n"),
		"build/out.log": file("ignored\n"),
		"app.log":       file("ignored too\n"),
	})
	s.mktask("t1", "HEAD", result)
	return &nudgeFixture{s: s, head: head, before: before, after: after}
}

func (f *nudgeFixture) inPatch(p string) bool {
	if _, ok := f.after[p]; ok {
		return true
	}
	// Folders the patch creates or prunes.
	for q := range f.after {
		if strings.HasPrefix(q, strings.TrimSuffix(p, "/")+"/") {
			return true
		}
	}
	return false
}

// where says, for every path of the patch, whether the work tree holds its
// before or its after version, and fails the test for anything else.
func (f *nudgeFixture) where(t testing.TB, pic map[string]*spec) (which map[string]string, nAfter int) {
	t.Helper()
	which = map[string]string{}
	for p := range f.after {
		now := pic[p]
		switch {
		case sameSpec(now, f.after[p]):
			which[p] = "after"
			nAfter++
		case sameSpec(now, f.before[p]):
			which[p] = "before"
		default:
			t.Fatalf("%s holds %v: neither its before (%v) nor its after (%v) version", p, now, f.before[p], f.after[p])
		}
	}
	return which, nAfter
}

func TestCrashApplyUndo(t *testing.T) {
	const n = 9 // paths in the patch
	for _, tc := range []struct {
		point  string
		undo   bool
		nAfter int // paths holding their after version once killed
	}{
		{"apply-after-journal", false, 0},
		{"apply-after-first-write", false, 1},
		{"apply-after-last-write", false, n},
		{"apply-before-final", false, n},
		{"undo-after-journal", true, n},
		{"undo-after-first-write", true, n - 1},
		{"undo-after-last-write", true, 0},
		{"undo-before-final", true, 0},
	} {
		t.Run(tc.point, func(t *testing.T) {
			t.Parallel()
			f := newNudgeFixture(t)
			s := f.s
			verb, busy := "apply", nudge.StateApplying
			if tc.undo {
				s.ok(s.nudge("apply", "t1"), "apply")
				verb, busy = "undo", nudge.StateUndoing
			}
			pic0, idx0 := s.picture(), s.indexSig()

			r := s.runIn(s.dir, "git-nudge", []string{verb, "t1"}, nudge.FaultEnv+"="+tc.point)
			if !r.killed {
				t.Fatalf("%s with %s=%s was not killed: %s", verb, nudge.FaultEnv, tc.point, r)
			}
			s.checkJournals()
			pic := s.picture()
			which, nAfter := f.where(t, pic) // (a)
			if nAfter != tc.nAfter {
				t.Errorf("%d paths hold their after version, want %d: %v", nAfter, tc.nAfter, which)
			}
			if d := diffPictures(pic0, pic, f.inPatch); len(d) > 0 { // (b)
				t.Errorf("files outside the patch changed: %v", d)
			}
			if l := leftovers(pic); len(l) > 0 {
				t.Errorf("temp files left in the work tree: %v", l)
			}
			if s.indexSig() != idx0 {
				t.Errorf("the index changed")
			}
			if st := s.task("t1").State; st != busy {
				t.Errorf("the record says %s, want %s", st, busy)
			}

			// (c) The next command finds the task Recovery required and
			// reports each file as the test sees it; nothing is retried.
			if st := s.listed("t1"); st != nudge.StateRecoveryRequired {
				t.Fatalf("git nudge list says t1 is %s", st)
			}
			if r := s.ok(s.nudge("list"), "list"); !strings.Contains(r.stdout, "Recovery required") {
				t.Fatalf("git nudge list does not say Recovery required:\n%s", r.stdout)
			}
			rep := s.recovery("t1")
			if rep.State != nudge.StateRecoveryRequired {
				t.Fatalf("recover reports state %s", rep.State)
			}
			if len(rep.Files) != n {
				t.Fatalf("recover lists %d files, want %d", len(rep.Files), n)
			}
			for _, rf := range rep.Files {
				if rf.Matches != which[rf.Path] {
					t.Errorf("recover says %s matches %s; it holds its %s version", rf.Path, rf.Matches, which[rf.Path])
				}
			}
			s.refused(s.nudge("apply", "t1"), "apply after the crash", "needs recovery")
			s.refused(s.nudge("undo", "t1"), "undo after the crash", "needs recovery")
			s.refused(s.nudge("drop", "t1"), "drop after the crash", "recover")
			if d := diffPictures(pic, s.picture(), nil); len(d) > 0 {
				t.Errorf("the commands after the crash changed files: %v", d)
			}
			if s.indexSig() != idx0 {
				t.Errorf("the commands after the crash changed the index")
			}
			if st := s.task("t1").State; st != nudge.StateRecoveryRequired {
				t.Errorf("the record is now %s", st)
			}
			s.checkJournals() // (d)
		})
	}
}

func TestCrashSave(t *testing.T) {
	for _, tc := range []struct {
		point, note string
		moved       bool // the branch had moved when the process died
	}{
		{"save-after-journal", "was interrupted before main moved; it was rolled back", false},
		{"save-after-ref", "was interrupted after main moved to", true},
		{"save-after-index", "was interrupted after main moved to", true},
	} {
		t.Run(tc.point, func(t *testing.T) {
			t.Parallel()
			f := newNudgeFixture(t)
			s := f.s
			s.ok(s.nudge("apply", "t1"), "apply")
			pic0, ix0 := s.picture(), s.indexEntries()

			r := s.runIn(s.dir, "git-nudge", []string{"save", "-m", "saved"}, nudge.FaultEnv+"="+tc.point)
			if !r.killed {
				t.Fatalf("save was not killed at %s: %s", tc.point, r)
			}
			s.checkJournals()
			if d := diffPictures(pic0, s.picture(), nil); len(d) > 0 { // (a)
				t.Fatalf("save changed work-tree files: %v", d)
			}
			head := s.git("rev-parse", "HEAD")
			if moved := head != f.head; moved != tc.moved {
				t.Fatalf("HEAD moved: %v, want %v", moved, tc.moved)
			}
			s.checkIndexAfterSave(f, ix0, false) // (b)

			// (c) The next save settles the interrupted one and says so.
			r = s.ok(s.nudge("save", "-m", "again"), "save after the crash")
			if !strings.Contains(r.stderr, "save s1 "+tc.note) {
				t.Fatalf("the next save does not report s1 (%q): %s", tc.note, r)
			}
			if d := diffPictures(pic0, s.picture(), nil); len(d) > 0 {
				t.Fatalf("work-tree files changed: %v", d)
			}
			s.checkIndexAfterSave(f, ix0, true)
			if st := s.task("t1"); st.State != nudge.StateSaved || st.SavedIn == nil || *st.SavedIn != s.git("rev-parse", "HEAD") {
				t.Errorf("t1 is %s, saved in %v; HEAD is %s", st.State, st.SavedIn, s.git("rev-parse", "HEAD"))
			}
			if got := s.git("rev-parse", "HEAD^"); got != f.head {
				t.Errorf("the saved commit's parent is %s, want %s", got, f.head)
			}
			for p, want := range f.after {
				if got := s.blobOf("HEAD", p); !sameSpec(got, want) {
					t.Errorf("HEAD has %s as %v, want %v", p, got, want)
				}
			}
			data := readFile(t, s.dir+"/.nudgethis/saves.json")
			if strings.Contains(data, `"saving"`) {
				t.Errorf("saves.json still holds a saving entry:\n%s", data)
			}
			s.checkJournals() // (d)
		})
	}
}

// checkIndexAfterSave checks the user's index against ix0 (as it was
// before save): entries of paths outside the patch are unchanged; those of
// the patch are either unchanged or HEAD's (must is true once the save has
// been completed: then they are HEAD's).
func (s *sandbox) checkIndexAfterSave(f *nudgeFixture, ix0 map[string]string, must bool) {
	s.t.Helper()
	ix := s.indexEntries()
	head := map[string]string{}
	for _, l := range strings.Split(s.git("ls-tree", "-r", "-z", "--full-tree", "HEAD"), "\x00") {
		meta, p, ok := strings.Cut(l, "\t")
		if ok {
			fl := strings.Fields(meta)
			head[p] = fl[0] + " " + fl[2] + " 0"
		}
	}
	for _, p := range sortedKeys(mergeKeys(ix0, ix)) {
		if _, inPatch := f.after[p]; !inPatch && ix[p] != ix0[p] {
			s.t.Errorf("index entry of %s (not saved) changed: %q -> %q", p, ix0[p], ix[p])
		}
	}
	for p := range f.after {
		switch {
		case ix[p] == head[p]:
		case !must && ix[p] == ix0[p]:
		default:
			s.t.Errorf("index entry of saved path %s is %q; before %q, HEAD %q", p, ix[p], ix0[p], head[p])
		}
	}
}

// listed is task id's state as `git nudge list --json` reports it.
func (s *sandbox) listed(id string) string {
	s.t.Helper()
	r := s.ok(s.nudge("list", "--json"), "list --json")
	var tasks []nudge.Task
	if err := json.Unmarshal([]byte(r.stdout), &tasks); err != nil {
		s.t.Fatalf("list --json: %v\n%s", err, r.stdout)
	}
	for _, t := range tasks {
		if t.ID == id {
			return t.State
		}
	}
	s.t.Fatalf("list --json has no %s:\n%s", id, r.stdout)
	return ""
}

func mergeKeys(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// A save killed before the branch moved must not make undo claim the task
// is part of a commit that never landed: undo works, and the next save
// rolls the interrupted one back.
func TestCrashSaveThenUndo(t *testing.T) {
	t.Parallel()
	f := newNudgeFixture(t)
	s := f.s
	s.ok(s.nudge("apply", "t1"), "apply")
	r := s.runIn(s.dir, "git-nudge", []string{"save"}, nudge.FaultEnv+"=save-after-journal")
	if !r.killed {
		t.Fatalf("save was not killed: %s", r)
	}
	s.ok(s.nudge("undo", "t1"), "undo after a save that never moved the branch")
	if _, n := f.where(t, s.picture()); n != 0 {
		t.Fatalf("%d files still hold their applied version after undo", n)
	}
	r = s.ok(s.nudge("save"), "save")
	if !strings.Contains(r.stderr, "save s1 was interrupted before main moved; it was rolled back") {
		t.Fatalf("save does not report the rollback: %s", r)
	}
	if got := s.git("rev-parse", "HEAD"); got != f.head {
		t.Fatalf("HEAD moved to %s", got)
	}
	s.checkJournals()
}
