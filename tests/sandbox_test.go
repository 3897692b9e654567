package tests

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/nudgethis/git-nudge/internal/proc"
)

// TestSandboxScripts runs the scenarios of git nudge run --sandbox. They
// have the condition [landlock]: true when this kernel offers Landlock
// (ABI 3 or later), probed here, so that a script skips its confinement
// checks, saying why, only where the kernel lacks it.
func TestSandboxScripts(t *testing.T) {
	p := Params("testdata/sandbox")
	p.Condition = func(cond string) (bool, error) {
		if cond != "landlock" {
			return condition(cond)
		}
		_, err := proc.SandboxABI()
		if err != nil {
			t.Logf("Landlock probe: %v", err)
		}
		return err == nil, nil
	}
	testscript.Run(t, p)
}
