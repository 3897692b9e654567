package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
)

// binaryVersion is the version of the running binary (git-nudge or
// git-autodev), set by the command line at start. Executors (git nudge
// work, a dashboard server) write it into their lock's note, so that a
// binary of another version refuses to change the same state while they
// run. It is read by server goroutines while the command line may set it
// (tests run both in one process), so it is kept atomically.
var binaryVersion atomic.Pointer[string]

// BinaryVersion returns the running binary's version ("dev" until set).
func BinaryVersion() string {
	if v := binaryVersion.Load(); v != nil {
		return *v
	}
	return "dev"
}

// SetBinaryVersion sets what BinaryVersion returns.
func SetBinaryVersion(v string) { binaryVersion.Store(&v) }

// FormatFile is the file of a state folder (.nudgethis, .autodev) that
// records the version of the folder's format: a number on one line.
const FormatFile = "format"

// NewerFormatError refuses to change a state folder written by a newer
// binary.
type NewerFormatError struct {
	Dir    string
	Found  int // the folder's format
	Known  int // the newest format this binary writes
	Binary string
}

func (e *NewerFormatError) Error() string {
	return fmt.Sprintf("%s has format %d, newer than format %d that this binary (version %s) knows; it changes nothing there, so that the newer version's state is never downgraded: use the newer version of the tool (or move %s aside to start afresh)",
		e.Dir, e.Found, e.Known, e.Binary, e.Dir)
}

// ReadFormat returns the format recorded in dir (ok false when none is).
// A format file that is not a number is a CorruptError naming it.
func ReadFormat(dir string) (format int, ok bool, err error) {
	path := filepath.Join(dir, FormatFile)
	b, err := ReadRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n < 1 {
		return 0, false, &CorruptError{Path: path, Err: fmt.Errorf("the format version is %q, not a number", strings.TrimSpace(string(b)))}
	}
	return n, true, nil
}

// CheckFormat refuses (NewerFormatError) when dir records a format newer
// than current; with write, a folder that records none gets current.
func CheckFormat(dir string, current int, write bool) error {
	found, ok, err := ReadFormat(dir)
	if err != nil {
		return err
	}
	if ok && found > current {
		return &NewerFormatError{Dir: dir, Found: found, Known: current, Binary: BinaryVersion()}
	}
	if !ok && write {
		return WriteBytes(filepath.Join(dir, FormatFile), []byte(strconv.Itoa(current)+"\n"))
	}
	return nil
}

// VersionNote is a lock note naming what holds the lock and this binary's
// version: "git-nudge work, version 1.2.0".
func VersionNote(what string) string {
	return what + ", version " + BinaryVersion()
}

var versionInNote = regexp.MustCompile(`, version (\S+?)\)?$`)

// HolderVersion returns the binary version a lock's holder wrote in its
// note (VersionNote), or "".
func HolderVersion(path string) string {
	m := versionInNote.FindStringSubmatch(readHolder(path))
	if m == nil {
		return ""
	}
	return m[1]
}

// OtherVersionError refuses to change state that a process of another
// binary version holds a lock on (an executor or server).
type OtherVersionError struct {
	Path    string
	Holder  string
	Version string
}

func (e *OtherVersionError) Error() string {
	return fmt.Sprintf("%s is held by %s, a different version (%s) from this one (%s); two versions never work on the same state: stop it, or use version %s while it runs",
		e.Path, e.Holder, e.Version, BinaryVersion(), e.Version)
}

// CheckHolderVersion refuses (OtherVersionError) when a live process of
// another binary version holds the lock at path.
func CheckHolderVersion(path string) error {
	held, err := Held(path)
	if err != nil || !held {
		return err
	}
	v := HolderVersion(path)
	if v == "" || v == BinaryVersion() {
		return nil
	}
	return &OtherVersionError{Path: path, Holder: readHolder(path), Version: v}
}
