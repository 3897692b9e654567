package journal

import (
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// FileKey is one version of a file as stat sees it: a long-lived reader
// (the dashboard) keeps what it decoded from a journal while the key is
// the same. Journals are written by rename, so each write makes a new
// inode while the old one still exists: the key changes with every
// write, whatever the file system's timestamp granularity.
// The change time is part of it: no process can set it back, so a file
// rewritten in place and given its old modification time again still
// gets a new key.
type FileKey struct {
	Dev, Ino     uint64
	Size         int64
	Mtime, Ctime int64 // nanoseconds
}

// Racy is how recent a file's modification time may be for a key to be
// trusted: a version written in the same timestamp tick as a later one
// (2 s on the coarsest common file systems) could share its key, so a
// file changed less than Racy before it was read is read again next time
// (as git does with its index).
const Racy = 2 * time.Second

// StatKey is path's key, without following a symlink; ok is false when it
// cannot be had (missing file, or no inode on this system).
func StatKey(path string) (key FileKey, ok bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return FileKey{}, false
	}
	return KeyOf(fi)
}

// StatKeyAt is StatKey of the file name in the folder dir: many files of
// one folder are looked at without resolving the folder's path each time.
func StatKeyAt(dir *os.File, name string) (key FileKey, ok bool) {
	var st unix.Stat_t
	if err := unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return FileKey{}, false
	}
	return FileKey{Dev: uint64(st.Dev), Ino: uint64(st.Ino), Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano()}, true
}

// KeyOf is the key of a file already stat'ed.
func KeyOf(fi os.FileInfo) (key FileKey, ok bool) {
	st, isSys := fi.Sys().(*syscall.Stat_t)
	if !isSys {
		return FileKey{}, false
	}
	return FileKey{Dev: uint64(st.Dev), Ino: uint64(st.Ino), Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Ctime: ChangeTime(st)}, true
}

// Settled reports whether a file with key k, read at time at, can be
// trusted unchanged for as long as its key stays k (see Racy).
func (k FileKey) Settled(at time.Time) bool {
	before := at.Add(-Racy).UnixNano()
	return k.Mtime < before && k.Ctime < before
}
