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
	testscript.Run(t, Params("testdata/script"))
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
