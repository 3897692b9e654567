//go:build unix

package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gitDirLeftovers lists the index locks and private indexes in .git.
func (s *sandbox) gitDirLeftovers() []string {
	s.t.Helper()
	ents, err := os.ReadDir(filepath.Join(s.dir, ".git"))
	if err != nil {
		s.t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if n := e.Name(); n == "index.lock" || strings.HasPrefix(n, "autodev-") {
			out = append(out, n)
		}
	}
	return out
}

// A restore killed (with every git process it started) at moments spread
// over its run, most often while git resets the work tree: git autodev
// status names whatever the kill left in .git, and running the restore
// again succeeds, removes those files and says so, instead of failing
// on git's "index.lock: File exists".
func TestCrashRestoreKilledDuringReset(t *testing.T) {
	if testing.Short() {
		t.Skip("the kill loop is skipped with -short")
	}
	t.Parallel()
	s := newFastSandbox(t)
	version := func(tag string) map[string]*spec {
		files := map[string]*spec{}
		for i := 0; i < 1500; i++ {
			files[fmt.Sprintf("d%02d/f%04d.txt", i%30, i)] = file(strings.Repeat(tag+" "+fmt.Sprint(i)+"\n", 1+i%5))
		}
		return files
	}
	s.write(version("one"))
	s.commitAll("base")
	s.ok(s.autodev("checkpoint", "-m", "one"), "checkpoint one")
	s.write(version("two"))
	s.ok(s.autodev("checkpoint", "-m", "two"), "checkpoint two")
	entries := s.checkpoints()
	ids := []string{entries[0].ID, entries[1].ID}

	start := time.Now()
	s.ok(s.autodev("restore", ids[0]), "restore (timing)")
	span := time.Since(start)

	loops := 12
	if raceBuild {
		loops = 6 // every command is several times slower under -race
	}
	hits := 0
	for i := 0; i < loops; i++ {
		target := ids[(i+1)%2]
		s.write(map[string]*spec{"local.txt": file(fmt.Sprintf("work %d\n", i))})
		delay := span * time.Duration(3+i%8) / 10
		r := s.killAfter(delay, "git-autodev", "restore", target)
		left := s.gitDirLeftovers()
		st := s.ok(s.autodev("status"), "status after the kill")
		for _, name := range left {
			if !strings.Contains(st.stdout, ".git/"+name) {
				t.Fatalf("iteration %d: .git/%s left by the kill (%s), status does not name it:\n%s", i, name, r, st.stdout)
			}
		}
		if len(left) > 0 {
			hits++
		}
		// A kill while git moved HEAD leaves git's own lock, which no
		// command can prove stale: status names it, restore refuses
		// changing nothing, and it is removed as the user is told to.
		for _, lock := range []string{"HEAD.lock", "refs/heads/main.lock"} {
			path := filepath.Join(s.dir, ".git", filepath.FromSlash(lock))
			if _, err := os.Lstat(path); err != nil {
				continue
			}
			if !strings.Contains(st.stdout, "HEAD locked: .git/"+lock) {
				t.Fatalf("iteration %d: .git/%s left by the kill, status does not name it:\n%s", i, lock, st.stdout)
			}
			before := s.git("status", "--porcelain")
			r := s.autodev("restore", target)
			if r.code == 0 || !strings.Contains(r.stderr, "nothing was changed") {
				t.Fatalf("iteration %d: restore with .git/%s there: %s", i, lock, r)
			}
			if after := s.git("status", "--porcelain"); after != before {
				t.Fatalf("iteration %d: the refused restore changed the tree:\n%s\nwas\n%s", i, after, before)
			}
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}
		again := s.ok(s.autodev("restore", target), fmt.Sprintf("iteration %d: restore again after the kill (%v left %v)", i, delay, left))
		for _, name := range left {
			if !strings.Contains(again.stderr, "removed .git/"+name) {
				t.Fatalf("iteration %d: the restore does not say it removed .git/%s:\n%s", i, name, again)
			}
		}
		if l := s.gitDirLeftovers(); len(l) > 0 {
			t.Fatalf("iteration %d: still in .git after the restore: %v", i, l)
		}
		var want string
		for _, e := range s.checkpoints() {
			if e.ID == target {
				want = e.Commit
			}
		}
		if head := s.git("rev-parse", "HEAD"); head != want {
			t.Fatalf("iteration %d: HEAD %s, want %s", i, head, want)
		}
		if st := s.git("status", "--porcelain"); st != "" {
			t.Fatalf("iteration %d: the tree is not the checkpoint's:\n%s", i, st)
		}
	}
	t.Logf("restore took %v uninterrupted; %d of %d kills left files in .git", span, hits, loops)
}
