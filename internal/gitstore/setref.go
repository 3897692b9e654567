package gitstore

// This file holds changing a ref in process, with git's lock protocol.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrRefConflict is returned when a compare-and-swap ref update finds the
// ref not at the expected old value (or, for a create, already present).
var ErrRefConflict = errors.New("ref changed underneath (compare-and-swap failed)")

// SetRefHere sets the ref name to newID if it is at old (old ZeroID: must
// not exist) in this process, with git's lock protocol (<ref>.lock created
// exclusively, compared, written, renamed into place), for refs that keep
// no reflog and where git would not refuse the name. done is false, and
// nothing is changed, when git must do it (a reflog, packed refs in the
// way, an object this process cannot see, a lock it could not take);
// when done, err is the outcome: nil, an ErrRefConflict, or why the ref
// could not be written.
func (r *Store) SetRefHere(name, newID, old string) (done bool, err error) {
	if !r.InProcess() || !strings.HasPrefix(name, "refs/") || !r.ValidID(newID) || !r.ValidID(old) {
		return false, nil
	}
	for _, c := range strings.Split(name, "/") {
		if !GoodRefComponent(c) || strings.HasSuffix(c, ".lock") {
			return true, fmt.Errorf("not a ref name: %q", name)
		}
	}
	p := filepath.Join(r.CommonDir, filepath.FromSlash(name))
	if r.RefNeedsGit(name) || !r.HasObjectHere(newID) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return false, nil
	}
	lock := p + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return true, fmt.Errorf("%w: %s is locked", ErrRefConflict, name)
	}
	if err != nil {
		return false, nil
	}
	fail := func(err error) (bool, error) {
		f.Close()
		os.Remove(lock)
		return true, err
	}
	cur, exists, handled := r.ReadOneRef(name)
	if !handled {
		f.Close()
		os.Remove(lock)
		return false, nil
	}
	if (old == r.ZeroID() && exists) || (old != r.ZeroID() && cur != old) {
		return fail(fmt.Errorf("%w: %s is at %q, expected %s", ErrRefConflict, name, cur, old))
	}
	if !exists && r.PackedClash(name) {
		// A packed ref where a folder of name would be, or under name:
		// git refuses such a ref, in its own words.
		f.Close()
		os.Remove(lock)
		return false, nil
	}
	if _, err := f.WriteString(newID + "\n"); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(lock)
		return true, err
	}
	if err := os.Rename(lock, p); err != nil {
		os.Remove(lock)
		return true, err
	}
	return true, nil
}
