package snapshot

import (
	"os"
	"testing"

	"github.com/nudgethis/git-nudge/internal/testutil"
)

// TestMain isolates the test binary from the machine's git setup: the
// fixtures run git with a fresh HOME, and so does the code under test
// (a global core.autocrlf, excludesFile or status setting of the
// developer's changed what a snapshot captured).
func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }
