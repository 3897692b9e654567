//go:build unix

package nudge

import (
	"os"

	"golang.org/x/sys/unix"
)

// blocksAt is the disk the entry name of folder dir takes (as statBlocks
// counts it), stat'ed relative to dir's handle, never followed.
func blocksAt(dir *os.File, name string) (n int64, key [2]uint64, linked bool, err error) {
	var st unix.Stat_t
	if err := unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, key, false, err
	}
	return int64(st.Blocks) * 512, [2]uint64{uint64(st.Dev), uint64(st.Ino)},
		st.Nlink > 1 && st.Mode&unix.S_IFMT != unix.S_IFDIR, nil
}
