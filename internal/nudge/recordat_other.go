//go:build !unix

package nudge

import (
	"os"
	"path/filepath"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// readRegularAt reads the regular file name in folder dir into buf's
// storage; a link, fifo or device there is an error.
func readRegularAt(dir *os.File, name string, buf []byte) ([]byte, error) {
	return journal.ReadFile(filepath.Join(dir.Name(), name), buf)
}
