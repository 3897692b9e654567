//go:build unix

package pool

import (
	"io/fs"
	"syscall"
)

// statBlocks is the disk a file takes (512-byte blocks), and for a file
// with more than one link its identity (device, inode), counted once.
func statBlocks(info fs.FileInfo) (n int64, key [2]uint64, linked bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return info.Size(), key, false
	}
	return int64(st.Blocks) * 512, [2]uint64{uint64(st.Dev), uint64(st.Ino)}, st.Nlink > 1 && !info.IsDir()
}
