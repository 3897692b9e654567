//go:build !linux

package worktree

import (
	"errors"
	"os"
)

const canRenameAt = false

func renameAt(from *os.File, name string, into *os.File, to string) error {
	return errors.New("renameat is not used on this platform")
}

func tmpfileIn(dir, stage *os.File, name string, perm os.FileMode) (*os.File, error) {
	return nil, errors.New("O_TMPFILE is not used on this platform")
}
