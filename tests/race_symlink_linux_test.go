//go:build linux

package tests

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// exchange swaps the names a and b atomically (renameat2 with
// RENAME_EXCHANGE): the racing path always exists, a folder one moment
// and a symlink the next.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}

// outsideState is every name, content and folder modification time below
// root: anything created, written, renamed or removed there changes it.
func outsideState(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			out = append(out, fmt.Sprintf("%s/ mtime %d", rel, fi.ModTime().UnixNano()))
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %o %q", rel, fi.Mode(), data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// While apply and undo run, another process keeps swapping a folder of the
// patch (src) for a symlink to a look-alike folder outside the work tree
// (same files, same content, so every check before the write passes when
// it looks through the link). Whatever the interleaving, and however each
// command ends, nothing outside the work tree is ever created, written,
// renamed or removed.
func TestApplyUndoSymlinkSwapRace(t *testing.T) {
	t.Parallel()
	s := newFastSandbox(t)
	base := filepath.Dir(s.dir)
	s.write(map[string]*spec{"src/a.txt": file("a\n"), "src/b.txt": file("b\n"), "src/deep/c.txt": file("c\n")})
	head := s.commitAll("base")
	result := s.commitTree(head, map[string]*spec{
		"src/a.txt": file("task a\n"), "src/b.txt": nil, "src/new/n.txt": file("task n\n"), "src/deep/c.txt": file("task c\n"),
	}, "task")

	outside := filepath.Join(base, "outside")
	for rel, data := range map[string]string{"a.txt": "a\n", "b.txt": "b\n", "deep/c.txt": "c\n"} {
		p := filepath.Join(outside, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Parked beside the repository; "../outside" is read relative to the
	// folder the link is in, so in the work tree it names base/outside.
	parked := filepath.Join(s.dir, "..", "parked-link")
	if err := os.Symlink("../outside", parked); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(s.dir, "src")
	want := outsideState(t, outside)

	var mu sync.Mutex // held by the swapper while it swaps; the test takes it to pause
	var stop atomic.Bool
	var swaps atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			mu.Lock()
			err := exchange(src, parked)
			mu.Unlock()
			if err != nil {
				t.Error(err)
				return
			}
			swaps.Add(1)
			if swaps.Load()%64 == 0 {
				time.Sleep(50 * time.Microsecond)
			}
		}
	}()
	// pause stops the swapper with src a real folder again.
	pause := func() {
		mu.Lock()
		if fi, err := os.Lstat(src); err != nil || !fi.IsDir() {
			if err := exchange(src, parked); err != nil {
				t.Fatal(err)
			}
		}
	}

	rounds := 40
	if raceBuild || testing.Short() {
		rounds = 10
	}
	applied, undone := 0, 0
	for i := 1; i <= rounds; i++ {
		pause()
		s.git("checkout", "-q", "--", ".")
		s.git("clean", "-fdq", "--", "src")
		id := fmt.Sprintf("t%d", i)
		s.mktask(id, "HEAD", result)
		mu.Unlock()

		r := s.nudge("apply", id)
		if r.killed || r.code > 1 {
			t.Fatalf("apply %s: %s", id, r)
		}
		if r.code == 0 {
			applied++
			if u := s.nudge("undo", id); u.code == 0 {
				undone++
			} else if u.killed || u.code > 1 {
				t.Fatalf("undo %s: %s", id, u)
			}
		}
		if got := outsideState(t, outside); fmt.Sprint(got) != fmt.Sprint(want) {
			stop.Store(true)
			<-done
			t.Fatalf("round %d: the folder outside the work tree changed:\nbefore %q\nafter  %q", i, want, got)
		}
	}
	stop.Store(true)
	<-done
	t.Logf("%d rounds, %d swaps, %d applies and %d undos went through", rounds, swaps.Load(), applied, undone)
}
