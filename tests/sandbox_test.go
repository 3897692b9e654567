package tests

import (
	"fmt"
	"net"
	"os"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/nudgethis/git-nudge/internal/proc"
)

// TestSandboxScripts runs the scenarios of git nudge run --sandbox twice:
// subtest bwrap with the sandbox on bubblewrap, and subtest landlock with
// its fallback, forced (GIT_NUDGE_TEST_NO_BWRAP=1). Conditions:
//
//   - [sandbox]: this subtest's engine can confine here (bubblewrap can
//     make its namespaces; the kernel offers Landlock ABI 3 or later), so
//     that a script skips its confinement checks, saying why, only where
//     it cannot;
//   - [bwrap]: this subtest runs the bubblewrap engine (what only it
//     holds: no network, the state folder hidden, read-only metadata,
//     nothing outlives the run, the process limit). Its [!bwrap] branches
//     check what the fallback is documented to leave open.
//
// With -short, the landlock subtest runs only where bubblewrap cannot, and
// only run_sandbox and sandbox_holds run.
//
// Under CI=true a machine without a working bubblewrap fails the bwrap
// subtest rather than skip it: CI installs it (.ci/run).
func TestSandboxScripts(t *testing.T) {
	for _, engine := range []proc.Engine{proc.EngineBwrap, proc.EngineLandlock} {
		t.Run(string(engine), func(t *testing.T) {
			var ok bool
			var why error
			if engine == proc.EngineBwrap {
				_, why = proc.BwrapProbe()
				if why != nil && os.Getenv("CI") == "true" {
					t.Fatalf("bubblewrap probe: %v (CI must install it: apt-get install -y bubblewrap)", why)
				}
			} else {
				if testing.Short() {
					// The fast tier runs the scenarios once, with the
					// engine this machine uses: Landlock only where
					// bubblewrap cannot run.
					if _, berr := proc.BwrapProbe(); berr == nil {
						t.Skip("the Landlock fallback (bubblewrap runs here): the full run only")
					}
				}
				_, why = proc.SandboxABI()
			}
			ok = why == nil
			if !ok {
				t.Logf("%s probe: %v", engine, why)
			}
			p := Params("testdata/sandbox")
			if testing.Short() {
				// The fast tier runs the scenarios that hold the
				// sandbox's promises (what run --sandbox confines, and
				// that it holds); review, validation and drop of a
				// sandboxed task run in the full run.
				p.Files = []string{"testdata/sandbox/run_sandbox.txtar", "testdata/sandbox/sandbox_holds.txtar"}
				p.Dir = ""
			}
			setup := p.Setup
			p.Setup = func(e *testscript.Env) error {
				if engine == proc.EngineLandlock {
					e.Setenv(proc.NoBwrapEnv, "1")
				}
				return setup(e)
			}
			p.Cmds["listen"] = listenCmd
			p.Condition = func(cond string) (bool, error) {
				switch cond {
				case "sandbox":
					return ok, nil
				case "bwrap":
					return engine == proc.EngineBwrap, nil
				}
				return condition(cond)
			}
			testscript.Run(t, p)
		})
	}
}

// listenCmd: listen VAR FILE starts a TCP server on 127.0.0.1 for the
// rest of the script, puts its port in $VAR, and appends a line to FILE
// for each connection it accepts (closing it at once).
func listenCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: listen VAR FILE")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	file := ts.MkAbs(args[1])
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
			if f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err == nil {
				fmt.Fprintln(f, "accepted")
				_ = f.Close()
			}
		}
	}()
	ts.Defer(func() { _ = l.Close(); wg.Wait() })
	ts.Setenv(args[0], fmt.Sprint(l.Addr().(*net.TCPAddr).Port))
}
