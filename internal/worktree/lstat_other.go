//go:build !linux

package worktree

import (
	"io/fs"
	"os"
)

func (r *RootFS) lstatFast(p string) (fs.FileInfo, bool) { return nil, false }

func (r *RootFS) openReadFast(p string) (*os.File, bool) { return nil, false }

func (r *RootFS) topFile() (*os.File, error) {
	r.topOnce.Do(func() { r.top, r.topErr = r.root.Open(".") })
	return r.top, r.topErr
}
