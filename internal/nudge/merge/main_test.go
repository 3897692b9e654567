package merge

import (
	"os"
	"testing"

	"github.com/nudgethis/git-nudge/internal/testutil"
)

// TestMain isolates the test binary from the machine's git setup before
// any test runs.
func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }
