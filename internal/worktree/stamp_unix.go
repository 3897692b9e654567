//go:build unix

package worktree

import (
	"io/fs"
	"syscall"
)

// stamp is what tells two looks at the same file apart.
type stamp struct {
	mode  fs.FileMode
	size  int64
	mtime int64
	ino   uint64
	dev   uint64
}

func stampOf(fi fs.FileInfo) stamp {
	s := stamp{mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.ino = uint64(st.Ino)
		s.dev = uint64(st.Dev)
	}
	return s
}
