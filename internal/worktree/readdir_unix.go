//go:build unix

package worktree

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// ReadDirTypes lists folder f's entries with their types as the folder
// itself records them, without an lstat of each: what os.File.ReadDir
// does for a folder opened by path, which it does not for one opened in
// an os.Root (there it stats every entry). Entries whose type the
// filesystem does not record are stat'ed relative to f, never followed.
// Use only their Name and Type: Info would stat them by path. f stays
// open; its offset is moved (the listing reads from the start).
func ReadDirTypes(f *os.File) ([]fs.DirEntry, error) {
	fd, err := unix.Dup(int(f.Fd()))
	if err != nil {
		return nil, err
	}
	d := os.NewFile(uintptr(fd), f.Name())
	defer d.Close()
	if _, err := d.Seek(0, 0); err != nil {
		return nil, err
	}
	return d.ReadDir(-1)
}
