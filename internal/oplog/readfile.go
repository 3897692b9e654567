package oplog

import (
	"os"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// fileID tells whether a journal file was replaced (journals are written
// to a temp file renamed into place: a new inode) or changed: its
// journal.FileKey (device, inode, size, modification and change time).
// The zero fileID means "not known": a file changed within journal.Racy
// of being looked at gets it, since a later version in the same clock
// tick (on a file system with coarse times, or with an inode reused after
// a rename) could look the same, so it is always read again.
type fileID = journal.FileKey

// readJournal reads a small file with the fewest system calls (open,
// fstat, read, close: recording reads every journal of the workspace) and
// returns its identity. ok is false when it cannot be read.
func readJournal(path string) (data []byte, id fileID, ok bool) {
	// The identity is taken first: a file replaced in between is read
	// in its newer version under the older identity, so a later look
	// sees a change and reads it again (never the other way round).
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, id, false
	}
	id = statID(fi)
	// Read through journal.ReadFile: a fifo or device swapped in after
	// the look is refused, never waited on, and a link never followed.
	data, err = journal.ReadFile(path, nil)
	if err != nil {
		return nil, id, false
	}
	if int64(len(data)) != fi.Size() {
		// It changed while read: no identity (read again next time).
		return journal.Settled(path, data), fileID{}, true
	}
	if v := journal.Settled(path, data); len(v) != len(data) || len(v) > 0 && &v[0] != &data[0] {
		// An append in place under way or interrupted: the version
		// before it, with no identity.
		return v, fileID{}, true
	}
	return data, id, true
}

// journalID is the identity of a file now (lstat), zero when absent.
func journalID(path string) (fileID, bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return fileID{}, false
	}
	return statID(fi), true
}

func statID(fi os.FileInfo) fileID {
	id, ok := journal.KeyOf(fi)
	if !ok || !id.Settled(time.Now()) {
		return fileID{}
	}
	return id
}
