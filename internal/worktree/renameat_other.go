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
