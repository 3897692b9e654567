// Package tests runs the command-line scenarios in testdata/script with
// testscript: both binaries are registered, so scripts call
// "exec git nudge ..." and "exec git autodev ..." through the real git.
package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/autodevcmd"
	"github.com/nudgethis/git-nudge/internal/cli/nudgecmd"
	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"git-nudge":   func() { os.Exit(nudgecmd.Main(os.Args[1:], cli.NewProcessEnv(context.Background()))) },
		"git-autodev": func() { os.Exit(autodevcmd.Main(os.Args[1:], cli.NewProcessEnv(context.Background()))) },
	})
}

func TestScripts(t *testing.T) {
	p := Params("testdata/script")
	if testing.Short() {
		p.Files = shortScripts(t, p.Dir)
		p.Dir = ""
	}
	testscript.Run(t, p)
}

// shortScripts is the fast tier's scenarios: one for each area of
// scenarios (a name's first word: apply, autodev, op, save, ...), the
// area's smallest file (fewest steps; the first name on a tie). The full
// run (go test ./...) runs every scenario in dir. The rule needs no list:
// a new area is in the fast tier at once, and a new scenario of an area
// takes that area's place there only while it is its smallest.
func shortScripts(t *testing.T, dir string) []string {
	t.Helper()
	all, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(all)
	type pick struct {
		file string
		size int64
	}
	smallest := map[string]pick{}
	var areas []string
	for _, f := range all {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		area, _, _ := strings.Cut(filepath.Base(f), "_")
		area = strings.TrimSuffix(area, ".txtar")
		cur, seen := smallest[area]
		if !seen {
			areas = append(areas, area)
		}
		if !seen || st.Size() < cur.size {
			smallest[area] = pick{f, st.Size()}
		}
	}
	if len(areas) == 0 {
		t.Fatalf("no scenario in %s", dir)
	}
	files := make([]string, 0, len(areas))
	for _, a := range areas {
		files = append(files, smallest[a].file)
	}
	return files
}

// TestShortScriptsOnePerArea keeps the fast tier's rule true: it runs
// exactly one scenario of every area, and none larger than another of
// the same area.
func TestShortScriptsOnePerArea(t *testing.T) {
	all, err := filepath.Glob("testdata/script/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	short := map[string]string{}
	for _, f := range shortScripts(t, "testdata/script") {
		area, _, _ := strings.Cut(filepath.Base(f), "_")
		if prev, ok := short[area]; ok {
			t.Errorf("the fast tier runs two %s scenarios: %s and %s", area, prev, f)
		}
		short[area] = f
	}
	for _, f := range all {
		area, _, _ := strings.Cut(filepath.Base(f), "_")
		pick, ok := short[area]
		if !ok {
			t.Errorf("the fast tier runs no %s scenario", area)
			continue
		}
		a, errA := os.Stat(f)
		b, errB := os.Stat(pick)
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if a.Size() < b.Size() {
			t.Errorf("the fast tier runs %s (%d bytes), larger than %s (%d bytes) of the same area", pick, b.Size(), f, a.Size())
		}
	}
}

// Params is the shared testscript set-up: a private HOME with a fixed git
// identity and default branch, no system config, fixed dates.
func Params(dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			home := filepath.Join(e.WorkDir, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			vars, err := testutil.IsolatedHome(home)
			if err != nil {
				return err
			}
			for _, kv := range vars {
				k, v, _ := strings.Cut(kv, "=")
				e.Setenv(k, v)
			}
			e.Setenv("NO_COLOR", "")
			e.Setenv("LC_ALL", "C")
			return nil
		},
		Cmds:      Commands(),
		Condition: condition,
	}
}

// condition answers the scripts' own conditions: [mtimefs] is true when
// the scripts' folders are on a filesystem where the snapshot lets git
// status keep an untracked cache (git.UntrackedCacheFS).
func condition(cond string) (bool, error) {
	if cond == "mtimefs" {
		return git.UntrackedCacheFS(os.TempDir()), nil
	}
	if cond == "sshd" {
		return sshdReady()
	}
	if cond == "podman" {
		return podmanReady()
	}
	if cond == "root" {
		return os.Geteuid() == 0, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}
