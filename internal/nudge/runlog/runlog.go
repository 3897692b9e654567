// Package runlog is the log a task's command, set-up and validation write
// their output to: a file that keeps only the end of what was written,
// with a first line saying how much was cut. It stands below the
// workspace core and imports nothing of it.
package runlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// Limit is how much of a command's output a task keeps: the last 1 MiB.
const Limit = 1 << 20

// Log is a log file that keeps only the last limit bytes written to it
// (the limit given to Open). When it has to drop the start, its first line
// says how much was cut.
// Writes are safe from several goroutines (a command's stdout and stderr).
type Log struct {
	mu        sync.Mutex
	f         *os.File
	limit     int64
	markerLen int64 // length of the marker line at the top of the file
	content   int64 // bytes of output in the file after the marker
	cut       int64 // bytes of output dropped so far
}

// Open creates (or empties) the log at path.
func Open(path string, limit int64) (*Log, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	// Never through a symlink: truncating would empty the link's target.
	for _, p := range []struct {
		path string
		want worktree.Kind
	}{{filepath.Dir(path), worktree.Dir}, {path, worktree.File}} {
		fi, err := os.Lstat(p.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if k := worktree.KindOf(fi); k != p.want {
			return nil, &worktree.StateError{Path: p.path, Kind: k, Want: p.want}
		}
	}
	f, err := journal.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	return &Log{f: f, limit: limit}, nil
}

// Write appends p; the file is compacted to its last limit bytes whenever
// it reaches twice that, so it never holds much more.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.f.Write(p)
	l.content += int64(n)
	if err != nil {
		return n, err
	}
	if l.content >= 2*l.limit {
		if err := l.compact(); err != nil {
			return n, err
		}
	}
	return n, nil
}

// Cut reports how many bytes of output the log has dropped (or will drop
// when closed).
func (l *Log) Cut() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cut + max(l.content-l.limit, 0)
}

// Close compacts the log to its last limit bytes and closes it.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var err error
	if l.content > l.limit {
		err = l.compact()
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// compact rewrites the file as a marker line plus the last limit bytes of
// output, starting at a line boundary when there is one near the cut.
func (l *Log) compact() error {
	keep := min(l.limit, l.content)
	// One byte more than kept, to see whether the cut falls on a line end.
	before := min(int64(1), l.content-keep)
	buf := make([]byte, before+keep)
	if _, err := l.f.ReadAt(buf, l.markerLen+l.content-keep-before); err != nil && err != io.EOF {
		return err
	}
	tail := buf[before:]
	dropped := l.content - keep
	if before == 1 && buf[0] != '\n' {
		if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < 4096 && i+1 < len(tail) {
			dropped += int64(i + 1)
			tail = tail[i+1:]
		}
	}
	l.cut += dropped
	marker := fmt.Sprintf("[git nudge: the first %d bytes of this output were cut; the last %d are kept below]\n", l.cut, len(tail))
	data := append([]byte(marker), tail...)
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	if _, err := l.f.WriteAt(data, 0); err != nil {
		return err
	}
	if _, err := l.f.Seek(int64(len(data)), io.SeekStart); err != nil {
		return err
	}
	l.markerLen, l.content = int64(len(marker)), int64(len(tail))
	return nil
}
