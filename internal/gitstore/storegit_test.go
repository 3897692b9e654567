package gitstore_test

import (
	"github.com/nudgethis/git-nudge/internal/gitstore"
	"github.com/nudgethis/git-nudge/internal/testutil/storegit"
)

// The internal tests' Store comes from storegit, which imports gitstore:
// only this external test file can import it and hand it in.
func init() { gitstore.OpenTestStore = storegit.Open }
