// Package tests runs the command-line scenarios in testdata/script with
// testscript: both binaries are registered, so scripts call
// "exec git nudge ..." and "exec git autodev ..." through the real git.
package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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

// fullOnlyList names the scenarios that only the full run (go test ./...)
// runs: the costliest ones, chosen so that the fast tier (go test -short
// ./...) still runs the cheapest scenario of every area. A new scenario is
// in the fast tier unless it is listed here.
const fullOnlyList = "testdata/full-only.txt"

// shortScripts is the fast tier's scenarios: every script in dir except
// those fullOnlyList names.
func shortScripts(t *testing.T, dir string) []string {
	t.Helper()
	full, err := fullOnly()
	if err != nil {
		t.Fatal(err)
	}
	all, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range all {
		if !full[strings.TrimSuffix(filepath.Base(f), ".txtar")] {
			files = append(files, f)
		}
	}
	return files
}

// fullOnly reads fullOnlyList: one scenario name a line, # comments.
func fullOnly() (map[string]bool, error) {
	b, err := os.ReadFile(fullOnlyList)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if line = strings.TrimSpace(line); line != "" {
			names[line] = true
		}
	}
	return names, nil
}

// TestFullOnlyListNamesScenarios keeps the fast tier's list true: every
// name it holds is a scenario, and every area of scenarios (the name's
// first word) keeps at least one scenario in the fast tier.
func TestFullOnlyListNamesScenarios(t *testing.T) {
	full, err := fullOnly()
	if err != nil {
		t.Fatal(err)
	}
	all, err := filepath.Glob("testdata/script/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	exists := map[string]bool{}
	short := map[string]bool{}
	areas := map[string]bool{}
	for _, f := range all {
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		exists[name] = true
		area, _, _ := strings.Cut(name, "_")
		areas[area] = true
		if !full[name] {
			short[area] = true
		}
	}
	for name := range full {
		if !exists[name] {
			t.Errorf("%s names %s, which is not a scenario in testdata/script", fullOnlyList, name)
		}
	}
	for area := range areas {
		if !short[area] {
			t.Errorf("every %s_* scenario is in %s: keep the cheapest one in the fast tier", area, fullOnlyList)
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
