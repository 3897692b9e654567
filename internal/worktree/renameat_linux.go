package worktree

import (
	"os"
	"syscall"
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
