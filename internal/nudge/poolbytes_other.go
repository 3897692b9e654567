//go:build !unix

package nudge

import (
	"os"
	"path/filepath"
)

// blocksAt is the size of the entry name of folder dir.
func blocksAt(dir *os.File, name string) (n int64, key [2]uint64, linked bool, err error) {
	info, err := os.Lstat(filepath.Join(dir.Name(), name))
	if err != nil {
		return 0, key, false, err
	}
	n, key, linked = statBlocks(info)
	return n, key, linked, nil
}
