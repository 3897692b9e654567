package worktree

import (
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

const canRenameAt = true

// renameAt renames name in folder from to name to in folder into
// (renameat: neither name is resolved through a symlink of its folder).
func renameAt(from *os.File, name string, into *os.File, to string) error {
	err := syscall.Renameat(int(from.Fd()), name, int(into.Fd()), to)
	if err != nil {
		return &os.LinkError{Op: "renameat", Old: name, New: to, Err: err}
	}
	return nil
}

// tmpfileIn creates an unnamed regular file (O_TMPFILE) in folder dir
// and links it as name into folder stage. Its inode is allocated near
// dir's other files, where it will live once renamed into place, rather
// than where the stage is: on ext4 without a journal, new inodes made in
// one folder whose earlier ones were recently deleted (every replaced
// file of the last apply or undo) are found by a scan past each of them,
// which made creating the stage files most of apply's CPU time. Until it
// is linked the file is nowhere, so a killed process leaves nothing in
// dir. An error means: create it in the stage as before.
func tmpfileIn(dir, stage *os.File, name string, perm os.FileMode) (*os.File, error) {
	fd, err := unix.Openat(int(dir.Fd()), ".", unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return nil, err
	}
	// linkat with AT_EMPTY_PATH needs a capability; through /proc it does not.
	if err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), int(stage.Fd()), name, unix.AT_SYMLINK_FOLLOW); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}
