//go:build unix

package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// NotRegularError is a state file that is not a regular file: a fifo, a
// device, a socket, a folder or a symbolic link. The suite
// neither reads nor writes it, since a fifo or a device can block forever
// and a link can stand for any file of the user's.
type NotRegularError struct {
	Path string
	What string // "a fifo (named pipe)", "a symbolic link", ...
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file, so it was neither read nor written (it could block or stand for another file): move it aside (mv %q %q) and run the command again",
		e.Path, e.What, e.Path, e.Path+".aside")
}

// kindOf names a file mode for NotRegularError.
func kindOf(m uint32) string {
	switch m & syscall.S_IFMT {
	case syscall.S_IFIFO:
		return "a fifo (named pipe)"
	case syscall.S_IFCHR:
		return "a character device"
	case syscall.S_IFBLK:
		return "a block device"
	case syscall.S_IFSOCK:
		return "a socket"
	case syscall.S_IFDIR:
		return "a folder"
	case syscall.S_IFLNK:
		return "a symbolic link"
	}
	return "not a regular file"
}

// openRegular is open(2) of a state file that never blocks and never
// follows a final symbolic link: O_NONBLOCK|O_NOFOLLOW|O_CLOEXEC are
// added to flag, and the file is looked at (fstat) once open. Anything
// but a regular file is closed again and refused with *NotRegularError;
// a missing file is a *fs.PathError satisfying errors.Is(err,
// fs.ErrNotExist). The descriptor returned is blocking again (for a
// regular file it makes no difference) and its size is returned too.
func openRegular(path string, flag int, perm uint32) (fd int, size int64, err error) {
	for {
		fd, err = syscall.Open(path, flag|syscall.O_NONBLOCK|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, perm)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		switch {
		case errors.Is(err, syscall.ELOOP), errors.Is(err, syscall.EMLINK):
			// O_NOFOLLOW met a link (Linux says ELOOP, the BSDs EMLINK).
			if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				return -1, 0, &NotRegularError{Path: path, What: "a symbolic link"}
			}
		case errors.Is(err, syscall.ENXIO):
			// A fifo opened for writing with no reader, or a device
			// without its driver.
			if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
				return -1, 0, &NotRegularError{Path: path, What: kindOf(uint32(modeBits(fi)))}
			}
		}
		return -1, 0, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return -1, 0, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if uint32(st.Mode)&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return -1, 0, &NotRegularError{Path: path, What: kindOf(uint32(st.Mode))}
	}
	if flag&syscall.O_NONBLOCK == 0 {
		_ = syscall.SetNonblock(fd, false)
	}
	return fd, st.Size, nil
}

// modeBits turns an fs.FileMode back into S_IFMT bits for kindOf.
func modeBits(fi fs.FileInfo) uint32 {
	m := fi.Mode()
	switch {
	case m&fs.ModeNamedPipe != 0:
		return syscall.S_IFIFO
	case m&fs.ModeCharDevice != 0:
		return syscall.S_IFCHR
	case m&fs.ModeDevice != 0:
		return syscall.S_IFBLK
	case m&fs.ModeSocket != 0:
		return syscall.S_IFSOCK
	case m&fs.ModeSymlink != 0:
		return syscall.S_IFLNK
	case m.IsDir():
		return syscall.S_IFDIR
	}
	return 0
}

// OpenFile is os.OpenFile for the suite's state files (task records,
// saves.json, checkpoints.json, locks, server.lock, journals, hook.log,
// memory files): it never blocks on a fifo or device and never follows a
// symbolic link; such a file is a *NotRegularError.
func OpenFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	fd, _, err := openRegular(path, flag, uint32(perm.Perm()))
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

// ReadRegular is os.ReadFile for a state file, with OpenFile's checks.
func ReadRegular(path string) ([]byte, error) {
	b, err := ReadFile(path, nil)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// WriteRegular is os.WriteFile for a state file written in place (a lock's
// holder note, a log), with OpenFile's checks.
func WriteRegular(path string, data []byte, perm os.FileMode) error {
	f, err := OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
