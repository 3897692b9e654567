//go:build unix

package pool

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

// openDirAt opens the folder name inside folder dir, relative to dir's
// handle: a symlink (or anything but a folder) there is an error, never
// followed. The file is named by dir's name joined with name.
func openDirAt(dir *os.File, name string) (*os.File, error) {
	fd, err := unix.Openat(int(dir.Fd()), name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "openat", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), dir.Name()+string(os.PathSeparator)+name), nil
}
