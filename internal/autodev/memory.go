package autodev

import (
	"errors"
	"io"
	"os"
	"strings"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// appendMemory adds one line to .autodev/memory.md (creating it), on a
// line of its own even when the file does not end with a newline, and
// syncs it to disk. Nothing else in the file changes.
func (ws *Workspace) appendMemory(line string) error {
	if err := ws.ensureDir(); err != nil {
		return err
	}
	path := ws.MemoryPath()
	f, err := journal.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644) // a fifo or link is refused, never waited on
	if err != nil {
		return err
	}
	defer f.Close()
	prefix := ""
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if last[0] != '\n' {
			prefix = "\n"
		}
	}
	line = strings.ReplaceAll(line, "\n", " ")
	if _, err := f.WriteString(prefix + line + "\n"); err != nil {
		return err
	}
	return f.Sync()
}
