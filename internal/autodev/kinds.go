package autodev

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Most checkpoints can be read back from their commit (--rebuild): the
// subject "autodev: <label>" gives the label and the type, the trailers
// the rest. Two cannot: a participant's own commit recorded as a
// checkpoint (its label comes from the post, not from the commit), and the
// pre-restore entry of a clean tree (it records the old HEAD, a commit
// another checkpoint may have made). Their entries are also kept here, in
// the shared git dir beside the high-water mark of ids, one JSON line
// each, so that a rebuilt journal keeps their type and label.

func (ws *Workspace) kindsPath() string {
	return filepath.Join(ws.Repo.CommonDir, "nudgethis", "checkpoint-entries")
}

// keepKind appends e to the file. It is best effort: a failure costs only
// what --rebuild could recover, never the checkpoint.
func (ws *Workspace) keepKind(e Entry) {
	line, err := json.Marshal(e)
	if err != nil {
		return
	}
	path := ws.kindsPath()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	// One write of one line: appends from two processes never interleave.
	f.Write(append(line, '\n'))
}

// keptKinds reads the entries kept, the last one of each id winning. A
// line that does not parse (a torn write) is skipped.
func (ws *Workspace) keptKinds() (map[string]Entry, error) {
	data, err := os.ReadFile(ws.kindsPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]Entry{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e Entry
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.ID != "" && e.Commit != "" {
			out[e.ID] = e
		}
	}
	return out, nil
}
