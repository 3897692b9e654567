package gitindex

import "golang.org/x/sys/unix"

// UntrackedCacheFS reports whether dir is on a local filesystem known to
// change a folder's mtime whenever an entry is created, removed or renamed
// in it (what git's untracked cache relies on).
func UntrackedCacheFS(dir string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return false
	}
	switch uint32(st.Type) {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC,
		unix.TMPFS_MAGIC, unix.F2FS_SUPER_MAGIC:
		return true
	}
	return false
}
