package worktree

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// StateError is returned when a state folder (.nudgethis, .autodev, a
// folder in them) or a lock or journal file in one is a symlink, or not
// the kind of thing it should be. The tools never keep state through a
// link: that would write it wherever the link points.
type StateError struct {
	Path string // relative to the top level, slash-separated
	Kind Kind   // what is there
	Want Kind   // Dir or File
}

func (e *StateError) Error() string {
	return fmt.Sprintf("refusing to use %s: it is a %s, not a %s; state is only kept in real folders and files inside the work tree, never through a symlink. Move %s aside (its target is not touched) and run the command again",
		e.Path, e.Kind, e.Want, e.Path)
}

// RealDir checks that folder rel (slash-separated, relative to folder top)
// and every folder above it up to top are plain folders, not symlinks,
// looking one component at a time through an os.Root opened at top. When
// create is set, the missing ones are created there (so the new folders
// are inside top even when racing); otherwise a missing one ends the
// check. It reports whether rel exists now.
func RealDir(top, rel string, create bool) (bool, error) {
	r, err := os.OpenRoot(top)
	if err != nil {
		return false, err
	}
	defer r.Close()
	parts := strings.Split(rel, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		fi, err := r.Lstat(filepath.FromSlash(p))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if !create {
				return false, nil
			}
			if err := r.Mkdir(filepath.FromSlash(p), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return false, fmt.Errorf("creating %s: %w", p, err)
			}
			if fi, err = r.Lstat(filepath.FromSlash(p)); err != nil {
				return false, err
			}
		case err != nil:
			return false, err
		}
		if k := kindOf(fi); k != Dir {
			return false, &StateError{Path: p, Kind: k, Want: Dir}
		}
	}
	return true, nil
}

// RealFile checks that each of files (slash-separated, relative to top),
// when it exists, is a regular file and not a symlink: a lock file or log
// opened through a link would be created, truncated or written where the
// link points. The folders above are checked as by RealDir.
func RealFile(top string, files ...string) error {
	r, err := os.OpenRoot(top)
	if err != nil {
		return err
	}
	defer r.Close()
	for _, f := range files {
		if d := parent(f); d != "" {
			if ok, err := RealDir(top, d, false); err != nil || !ok {
				if err != nil {
					return err
				}
				continue
			}
		}
		fi, err := r.Lstat(filepath.FromSlash(f))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if k := kindOf(fi); k != File {
			return &StateError{Path: f, Kind: k, Want: File}
		}
	}
	return nil
}
