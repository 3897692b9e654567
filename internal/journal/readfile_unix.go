//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package journal

import (
	"io/fs"
	"syscall"
)

// ReadFile is os.ReadFile for reading many small journal files in a row
// (git nudge list reads every task record): open, read, close and nothing
// else, where os.ReadFile also stats the file and tries (and fails) to
// register it with the runtime's poller, about ten system calls a file.
// buf, when large enough, is used for the content (pass the last result
// back to reuse it); errors are *fs.PathError as os.ReadFile's.
func ReadFile(path string, buf []byte) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	if cap(buf) < 16<<10 {
		buf = make([]byte, 0, 16<<10)
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
