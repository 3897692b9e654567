//go:build !unix

package worktree

import (
	"io/fs"
	"os"
)

// ReadDirTypes lists folder f's entries with their types.
func ReadDirTypes(f *os.File) ([]fs.DirEntry, error) { return f.ReadDir(-1) }
