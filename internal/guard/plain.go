package guard

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// OpenPlain opens name in root for reading when it is a regular file: a
// symlink is refused (nothing outside root is reached), and a fifo swapped
// in after the look never blocks the open.
func OpenPlain(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	if st, err := root.Lstat(name); err != nil {
		return nil, nil, err
	} else if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a plain file", name)
	}
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a plain file", name)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// ReadPlain reads name in root when it is a regular file of at most max
// bytes (see OpenPlain).
func ReadPlain(root *os.Root, name string, max int64) ([]byte, error) {
	f, st, err := OpenPlain(root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > max {
		return nil, fmt.Errorf("%s is over %d bytes", name, max)
	}
	return io.ReadAll(io.LimitReader(f, max))
}
