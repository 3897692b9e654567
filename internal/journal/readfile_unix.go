//go:build unix

package journal

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// ReadFile is os.ReadFile for reading many small journal files in a row
// (git nudge list reads every task record): open, fstat (a fifo, device
// or symbolic link is a *NotRegularError), read, close and
// nothing else, where os.ReadFile also stats the file and tries (and fails) to
// register it with the runtime's poller, about ten system calls a file.
// buf, when large enough, is used for the content (pass the last result
// back to reuse it); errors are *fs.PathError as os.ReadFile's.
func ReadFile(path string, buf []byte) ([]byte, error) {
	// A fifo, device or link at path is refused, never waited on.
	fd, size, err := openRegular(path, syscall.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	return readAll(fd, size, path, buf)
}

// ReadFileAt is ReadFile for the file name in folder dir, opened relative
// to dir's handle: one name to resolve instead of the whole path, for
// reading every file of one folder.
func ReadFileAt(dir *os.File, name string, buf []byte) ([]byte, error) {
	fd, err := unix.Openat(int(dir.Fd()), name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if uint32(st.Mode)&syscall.S_IFMT != syscall.S_IFREG {
		return nil, &NotRegularError{Path: name, What: kindOf(uint32(st.Mode))}
	}
	return readAll(fd, st.Size, name, buf)
}

// readAll reads the open file fd, of size bytes when it was stat'ed, to
// its end, into buf's storage when large enough.
func readAll(fd int, size int64, path string, buf []byte) ([]byte, error) {
	want := int(size) + 512
	if want < 16<<10 {
		want = 16 << 10
	}
	if cap(buf) < want {
		buf = make([]byte, 0, want)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}
