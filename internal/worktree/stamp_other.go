//go:build !unix

package worktree

import "io/fs"

// stamp is what tells two looks at the same file apart.
type stamp struct {
	mode  fs.FileMode
	size  int64
	mtime int64
}

func stampOf(fi fs.FileInfo) stamp {
	return stamp{mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}
