package apply

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/testutil/testrepo"
)

// TestApplyScale measures the claim that apply and undo cost follows
// the patch, not the repository: the same 50-file patch is applied and
// undone in a 10,000-file and a 100,000-file repository, and the git
// processes each command starts are counted through a logging git shim.
// It is slow, so it only runs with GIT_NUDGE_SCALE=1:
//
//	GIT_NUDGE_SCALE=1 go test ./internal/nudge -run TestApplyScale -v
func TestApplyScale(t *testing.T) {
	if os.Getenv("GIT_NUDGE_SCALE") == "" {
		t.Skip("set GIT_NUDGE_SCALE=1 to run the scale measurement")
	}
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	shimDir := t.TempDir()
	log := filepath.Join(shimDir, "log")
	shim := fmt.Sprintf("#!/bin/sh\ns=$(date +%%s%%N)\n%q \"$@\"\nrc=$?\nprintf '%%s %%s\\n' $(( ($(date +%%s%%N) - s) / 1000000 ))ms \"$*\" >> %q\nexit $rc\n", real, log)
	if err := os.WriteFile(filepath.Join(shimDir, "git"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	spawns := func(f func()) int {
		os.Remove(log)
		f()
		b, _ := os.ReadFile(log)
		if os.Getenv("GIT_NUDGE_SCALE") == "v" {
			t.Logf("%s", b)
		}
		return strings.Count(string(b), "\n")
	}
	for _, n := range []int{10000, 100000} {
		r := newRepo(t, "gc.auto", "0")
		for i := 0; i < n; i++ {
			r.Write(fmt.Sprintf("d%03d/f%05d.txt", i%1000, i), fmt.Sprintf("file %d\n", i), 0o644)
		}
		base := r.CommitAll("base")
		r.Git("gc", "-q") // objects packed, as in a real repository of this size
		changes := map[string]testrepo.Change{}
		for i := 0; i < 50; i++ {
			j := i * (n / 50)
			changes[fmt.Sprintf("d%03d/f%05d.txt", j%1000, j)] = testrepo.Put(fmt.Sprintf("changed %d\n", j))
		}
		r.mkTask("t1", base, r.CommitOn(base, changes))
		r.workspace()
		os.Setenv("PATH", shimDir+string(os.PathListSeparator)+os.Getenv("PATH"))
		var applyT, undoT []time.Duration
		var applyN, undoN int
		for round := 0; round < 5; round++ {
			start := time.Now()
			applyN = spawns(func() {
				if _, err := Run(ctx, r.ws, "t1", Options{}); err != nil {
					t.Fatal(err)
				}
			})
			applyT = append(applyT, time.Since(start))
			start = time.Now()
			undoN = spawns(func() {
				if _, err := Undo(ctx, r.ws, "t1"); err != nil {
					t.Fatal(err)
				}
			})
			undoT = append(undoT, time.Since(start))
		}
		os.Setenv("PATH", strings.TrimPrefix(os.Getenv("PATH"), shimDir+string(os.PathListSeparator)))
		t.Logf("%6d files, 50-file patch: apply median %v (%d git processes), undo median %v (%d git processes)",
			n, median(applyT), applyN, median(undoT), undoN)
	}
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration{}, d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
