package gitindex

import (
	"os"
	"testing"

	"github.com/nudgethis/git-nudge/internal/testutil"
	"github.com/nudgethis/git-nudge/internal/testutil/storegit"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// openTestStore is the index Files of the repository whose work tree is
// dir, its Store's fallbacks served by git processes (storegit; package
// git cannot be imported here).
func openTestStore(dir string) (*Files, error) {
	s, err := storegit.Open(dir)
	if err != nil {
		return nil, err
	}
	return &Files{Store: s}, nil
}
