package retire_test

import (
	"os"
	"testing"

	"github.com/nudgethis/git-nudge/internal/testutil"
)

// TestMain isolates the whole test binary from the machine's git setup
// before any test runs. isolateGit did it lazily, from the first test
// making a repository: tests running before it (or in parallel with it)
// ran git with the developer's HOME, global config and clock, and saw
// HOME and the commit dates change under them mid-run.
func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }
