package git

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// Private index files and index.lock: which are whose.
//
// CopyIndex names a private index <name>-<pid>-<random>.index in the git
// dir, so a file left by a process that was killed says which process made
// it. git writes such an index through <file>.lock, which a kill leaves
// too. The user's index.lock is taken by InstallIndex as a hard link to the
// private index it installs, so an index.lock left by a killed install is
// the same file as a private index still beside it: that, and only that,
// proves that the lock is ours. Every other index.lock may belong to a
// running git process and is never removed here.

// LeftoverIndex is a file of a private index in the git dir, or the user's
// index.lock linked to one.
type LeftoverIndex struct {
	Path string // absolute
	// PID is the process that made it, from its name (0 for a name from
	// a version that did not record it).
	PID int
	// Lock is true for <private index>.lock, which git was writing when
	// the process died.
	Lock bool
	// UserLock is true for the user's index.lock, taken by InstallIndex as
	// a link to the private index of PID.
	UserLock bool
}

// LeftoverIndexes lists the private index files named by CopyIndex(name)
// that are in the git dir, and the user's index.lock when it is a link to
// one of them. The caller decides, from PID, which were left by processes
// that have ended.
func (r *Repo) LeftoverIndexes(name string) ([]LeftoverIndex, error) {
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(name) + `-(?:([0-9]+)-)?[0-9]+\.index(\.lock)?$`)
	ents, err := os.ReadDir(r.GitDir)
	if err != nil {
		return nil, err
	}
	userLock, lockErr := os.Lstat(r.IndexPath() + ".lock")
	var out []LeftoverIndex
	for _, e := range ents {
		m := re.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		l := LeftoverIndex{Path: filepath.Join(r.GitDir, e.Name()), Lock: m[2] != ""}
		l.PID, _ = strconv.Atoi(m[1])
		out = append(out, l)
		if lockErr == nil && !l.Lock {
			if st, err := os.Lstat(l.Path); err == nil && os.SameFile(st, userLock) {
				out = append(out, LeftoverIndex{Path: r.IndexPath() + ".lock", PID: l.PID, UserLock: true})
			}
		}
	}
	return out, nil
}

// RemoveLeftover removes a file LeftoverIndexes listed. The user's
// index.lock is removed only while it is still the same file as a private
// index of l.PID's.
func (r *Repo) RemoveLeftover(name string, l LeftoverIndex) error {
	if l.UserLock {
		now, err := r.LeftoverIndexes(name)
		if err != nil {
			return err
		}
		still := false
		for _, n := range now {
			still = still || (n.UserLock && n.PID == l.PID)
		}
		if !still {
			return nil
		}
	}
	if err := os.Remove(l.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// IndexLocked reports whether the user's index.lock exists (a git process
// is changing the index, or one was killed while it did).
func (r *Repo) IndexLocked() bool {
	_, err := os.Lstat(r.IndexPath() + ".lock")
	return err == nil
}

// IndexLockedError is a user's index.lock that is not provably ours.
type IndexLockedError struct{ Path string }

func (e *IndexLockedError) Error() string {
	return fmt.Sprintf("%s exists: another git command is changing the index, or one was killed while it did; if no git command is running in this repository, remove %s, then try again", e.Path, e.Path)
}

// Is makes errors.Is(err, ErrIndexLocked) hold.
func (e *IndexLockedError) Is(target error) bool { return target == ErrIndexLocked }
