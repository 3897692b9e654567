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

// sameFile reports whether a and b describe the same file (same device
// and inode; true when the filesystem does not tell, as memfs).
func sameFile(a, b fs.FileInfo) bool {
	sa, sb := stampOf(a), stampOf(b)
	return sa.ino == sb.ino && sa.dev == sb.dev
}
