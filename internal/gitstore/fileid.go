package gitstore

// This file holds file identity: what tells one version of a file from
// another (device, inode, size, times), for the caches kept by file.

import (
	"os"

	"golang.org/x/sys/unix"
)

// FileID is what tells one version of a file from another.
type FileID struct {
	Dev   uint64 `json:"dev"`
	Ino   uint64 `json:"ino"`
	Size  int64  `json:"size"`
	Mtime int64  `json:"mtime_ns"`
	Ctime int64  `json:"ctime_ns"`
}

// IDOfPath is the identity of the file at path (not followed if a link);
// ok is false when it is not a regular file. golang.org/x/sys/unix names
// the change time Ctim on every unix (syscall's Stat_t does not).
func IDOfPath(path string) (FileID, bool) {
	var s unix.Stat_t
	if err := unix.Lstat(path, &s); err != nil || s.Mode&unix.S_IFMT != unix.S_IFREG {
		return FileID{}, false
	}
	return IDOfStat(&s), true
}

// IDOfStat is the identity stat data gives.
func IDOfStat(s *unix.Stat_t) FileID {
	return FileID{Dev: uint64(s.Dev), Ino: uint64(s.Ino), Size: s.Size,
		Mtime: s.Mtim.Nano(), Ctime: s.Ctim.Nano()}
}

// FolderID is IDOfPath for a folder (followed if a link); ok is false when
// there is none at path.
func FolderID(path string) (FileID, bool) {
	var s unix.Stat_t
	if err := unix.Stat(path, &s); err != nil || s.Mode&unix.S_IFMT != unix.S_IFDIR {
		return FileID{}, false
	}
	return IDOfStat(&s), true
}

func FileIDOf(f *os.File) FileID {
	var s unix.Stat_t
	if unix.Fstat(int(f.Fd()), &s) != nil {
		return FileID{}
	}
	return IDOfStat(&s)
}
