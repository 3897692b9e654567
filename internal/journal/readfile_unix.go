//go:build unix

package journal

import (
	"io/fs"
	"syscall"
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
