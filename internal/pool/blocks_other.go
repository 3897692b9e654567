//go:build !unix

package pool

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

// openDirAt opens the folder name inside folder dir; a symlink there is
// an error.
func openDirAt(dir *os.File, name string) (*os.File, error) {
	p := filepath.Join(dir.Name(), name)
	if st, err := os.Lstat(p); err != nil {
		return nil, err
	} else if !st.IsDir() {
		return nil, &os.PathError{Op: "open", Path: p, Err: os.ErrInvalid}
	}
	return os.Open(p)
}
