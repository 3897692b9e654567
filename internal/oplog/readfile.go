package oplog

import (
	"os"
	"syscall"
)

// fileID tells whether a journal file was replaced (journals are written
// to a temp file renamed into place: a new inode) or changed.
type fileID struct {
	ino, size, mtime int64
}

// readJournal reads a small file with the fewest system calls (open,
// fstat, read, close: recording reads every journal of the workspace) and
// returns its identity. ok is false when it cannot be read.
func readJournal(path string) (data []byte, id fileID, ok bool) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, id, false
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, id, false
	}
	data = make([]byte, st.Size)
	n := 0
	for n < len(data) {
		m, err := syscall.Read(fd, data[n:])
		if err != nil || m == 0 {
			break
		}
		n += m
	}
	if n != len(data) {
		// It changed while read: read it the ordinary way.
		b, err := os.ReadFile(path)
		return b, fileID{}, err == nil
	}
	return data, statID(&st), true
}

// journalID is the identity of a file now (lstat), zero when absent.
func journalID(path string) (fileID, bool) {
	var st syscall.Stat_t
	if syscall.Lstat(path, &st) != nil {
		return fileID{}, false
	}
	return statID(&st), true
}

func statID(st *syscall.Stat_t) fileID {
	return fileID{ino: int64(st.Ino), size: st.Size, mtime: st.Mtim.Nano()}
}
