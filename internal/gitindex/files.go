// Package gitindex reads and writes git's index files in this process:
// the user's index (its lock, installing a new one, editing entries with
// its cache-tree kept valid), private indexes, and the stat cache. It
// stands on package gitstore (objects, trees, ref and config files) and,
// like it, never starts git: what it leaves to git it asks of the Store's
// Git.
package gitindex

import (
	"github.com/nudgethis/git-nudge/internal/gitstore"
)

// Files is a repository's index files, on its Store.
type Files struct {
	*gitstore.Store
}
