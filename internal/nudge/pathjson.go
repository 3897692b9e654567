package nudge

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/pathenc"
)

// Names are bytes (SPEC 1.11). Every record that holds a path writes it
// with pathenc.Encode ("path", plus "path_b64" when the name is not valid
// UTF-8) and reads it back with pathenc.Decode. In the wrappers below the
// outer "path" field shadows the embedded one, so the key order of an
// entry is kept: path first (all of these entries start with it), then
// path_b64, then the other fields, including any a later change adds.
//
// A task record is the hot case (a 2,000-file patch is read and written
// several times by one apply), so its entries (Skipped, FileChange,
// PathState) have no methods of their own: Task.MarshalJSON and
// Task.UnmarshalJSON go through taskWire, whose lists use the wrappers,
// only when a name needs it (a name that is not UTF-8 when writing,
// "path_b64" in the data when reading). Other records use the wrappers
// directly.

type (
	skippedJSON    Skipped
	fileChangeJSON FileChange
	pathStateJSON  PathState
	undoFields     Undo
)

// undoWire is Undo with its paths as bytes survive JSON.
type undoWire struct {
	undoFields
	Before []pathStateJSON `json:"before"`
	After  []pathStateJSON `json:"after"`
}

// taskWire is a task record whose paths go through the wrappers.
type taskWire struct {
	taskFields
	Skipped       []skippedJSON    `json:"skipped"`
	ResultSkipped []skippedJSON    `json:"result_skipped,omitempty"`
	Files         []fileChangeJSON `json:"files"`
	Undo          *undoWire        `json:"undo"`
}

// convert maps a list, keeping nil as nil.
func convert[From, To any](in []From, f func(From) To) []To {
	if in == nil {
		return nil
	}
	out := make([]To, len(in))
	for i, x := range in {
		out[i] = f(x)
	}
	return out
}

// namesValid reports whether every path of the record is valid UTF-8 (and
// so needs no path_b64).
func (t *Task) namesValid() bool {
	for _, s := range t.Skipped {
		if !utf8.ValidString(s.Path) {
			return false
		}
	}
	for _, s := range t.ResultSkipped {
		if !utf8.ValidString(s.Path) {
			return false
		}
	}
	for _, f := range t.Files {
		if !utf8.ValidString(f.Path) {
			return false
		}
	}
	if t.Undo != nil {
		for _, l := range [][]PathState{t.Undo.Before, t.Undo.After} {
			for _, s := range l {
				if !utf8.ValidString(s.Path) {
					return false
				}
			}
		}
	}
	return true
}

// wire returns the record as taskWire.
func (t *Task) wire() *taskWire {
	w := &taskWire{
		taskFields:    taskFields(*t),
		Skipped:       convert(t.Skipped, func(s Skipped) skippedJSON { return skippedJSON(s) }),
		ResultSkipped: convert(t.ResultSkipped, func(s Skipped) skippedJSON { return skippedJSON(s) }),
		Files:         convert(t.Files, func(f FileChange) fileChangeJSON { return fileChangeJSON(f) }),
	}
	if t.Undo != nil {
		toW := func(s PathState) pathStateJSON { return pathStateJSON(s) }
		w.Undo = &undoWire{undoFields: undoFields(*t.Undo), Before: convert(t.Undo.Before, toW), After: convert(t.Undo.After, toW)}
	}
	return w
}

// fromWire sets the record from w.
func (t *Task) fromWire(w *taskWire) {
	*t = Task(w.taskFields)
	t.Skipped = convert(w.Skipped, func(s skippedJSON) Skipped { return Skipped(s) })
	t.ResultSkipped = convert(w.ResultSkipped, func(s skippedJSON) Skipped { return Skipped(s) })
	t.Files = convert(w.Files, func(f fileChangeJSON) FileChange { return FileChange(f) })
	t.Undo = nil
	if w.Undo != nil {
		fromW := func(s pathStateJSON) PathState { return PathState(s) }
		u := Undo(w.Undo.undoFields)
		u.Before, u.After = convert(w.Undo.Before, fromW), convert(w.Undo.After, fromW)
		t.Undo = &u
	}
}

// SkippedList is a list of left-out paths as `snapshot --json` prints it.
type SkippedList []Skipped

// MarshalJSON writes the paths as bytes survive JSON.
func (l SkippedList) MarshalJSON() ([]byte, error) {
	return pathenc.Marshal(convert(l, func(s Skipped) skippedJSON { return skippedJSON(s) }))
}

// MarshalJSON writes the path as bytes survive JSON.
func (s skippedJSON) MarshalJSON() ([]byte, error) {
	type plain Skipped
	p, b := pathenc.Encode(s.Path)
	return pathenc.Marshal(struct {
		Path    string `json:"path"`
		PathB64 string `json:"path_b64,omitempty"`
		plain
	}{p, b, plain(s)})
}

// UnmarshalJSON reads the path back, from path_b64 when present.
func (s *skippedJSON) UnmarshalJSON(data []byte) error {
	type plain Skipped
	var v struct {
		Path    string  `json:"path"`
		PathB64 *string `json:"path_b64"`
		plain
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	p, err := pathenc.Decode(v.Path, v.PathB64)
	*s = skippedJSON(v.plain)
	s.Path = p
	return err
}

// MarshalJSON writes the path as bytes survive JSON.
func (f fileChangeJSON) MarshalJSON() ([]byte, error) {
	type plain FileChange
	p, b := pathenc.Encode(f.Path)
	return pathenc.Marshal(struct {
		Path    string `json:"path"`
		PathB64 string `json:"path_b64,omitempty"`
		plain
	}{p, b, plain(f)})
}

// UnmarshalJSON reads the path back, from path_b64 when present.
func (f *fileChangeJSON) UnmarshalJSON(data []byte) error {
	type plain FileChange
	var v struct {
		Path    string  `json:"path"`
		PathB64 *string `json:"path_b64"`
		plain
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	p, err := pathenc.Decode(v.Path, v.PathB64)
	*f = fileChangeJSON(v.plain)
	f.Path = p
	return err
}

// MarshalJSON writes the path as bytes survive JSON.
func (s pathStateJSON) MarshalJSON() ([]byte, error) {
	type plain PathState
	p, b := pathenc.Encode(s.Path)
	return pathenc.Marshal(struct {
		Path    string `json:"path"`
		PathB64 string `json:"path_b64,omitempty"`
		plain
	}{p, b, plain(s)})
}

// UnmarshalJSON reads the path back, from path_b64 when present.
func (s *pathStateJSON) UnmarshalJSON(data []byte) error {
	type plain PathState
	var v struct {
		Path    string  `json:"path"`
		PathB64 *string `json:"path_b64"`
		plain
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	p, err := pathenc.Decode(v.Path, v.PathB64)
	*s = pathStateJSON(v.plain)
	s.Path = p
	return err
}

// MarshalJSON writes the path as bytes survive JSON.
func (f FileOutcome) MarshalJSON() ([]byte, error) {
	type plain FileOutcome
	p, b := pathenc.Encode(f.Path)
	return pathenc.Marshal(struct {
		Path    string `json:"path"`
		PathB64 string `json:"path_b64,omitempty"`
		plain
	}{p, b, plain(f)})
}

// UnmarshalJSON reads the path back, from path_b64 when present.
func (f *FileOutcome) UnmarshalJSON(data []byte) error {
	type plain FileOutcome
	var v struct {
		Path    string  `json:"path"`
		PathB64 *string `json:"path_b64"`
		plain
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	p, err := pathenc.Decode(v.Path, v.PathB64)
	*f = FileOutcome(v.plain)
	f.Path = p
	return err
}

// MarshalJSON writes the path as bytes survive JSON.
func (f RecoverFile) MarshalJSON() ([]byte, error) {
	type plain RecoverFile
	p, b := pathenc.Encode(f.Path)
	return pathenc.Marshal(struct {
		Path    string `json:"path"`
		PathB64 string `json:"path_b64,omitempty"`
		plain
		Before pathStateJSON `json:"before"`
		After  pathStateJSON `json:"after"`
	}{p, b, plain(f), pathStateJSON(f.Before), pathStateJSON(f.After)})
}

// UnmarshalJSON reads the path back, from path_b64 when present.
func (f *RecoverFile) UnmarshalJSON(data []byte) error {
	type plain RecoverFile
	var v struct {
		Path    string  `json:"path"`
		PathB64 *string `json:"path_b64"`
		plain
		Before pathStateJSON `json:"before"`
		After  pathStateJSON `json:"after"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	p, err := pathenc.Decode(v.Path, v.PathB64)
	*f = RecoverFile(v.plain)
	f.Path, f.Before, f.After = p, PathState(v.Before), PathState(v.After)
	return err
}

// MarshalJSON writes the report; leftovers that are not valid UTF-8 also
// go into leftovers_b64 (see pathenc.EncodeList).
func (r Recovery) MarshalJSON() ([]byte, error) {
	type plain Recovery
	v := struct {
		plain
		LeftoversB64 []string `json:"leftovers_b64,omitempty"`
	}{plain: plain(r)}
	v.Leftovers, v.LeftoversB64 = pathenc.EncodeList(r.Leftovers)
	return pathenc.Marshal(v)
}

// UnmarshalJSON reads a report written by MarshalJSON.
func (r *Recovery) UnmarshalJSON(data []byte) error {
	type plain Recovery
	var v struct {
		plain
		LeftoversB64 []string `json:"leftovers_b64"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*r = Recovery(v.plain)
	var err error
	r.Leftovers, err = pathenc.DecodeList(v.Leftovers, v.LeftoversB64)
	return err
}

// saveFieldsB64 is a saves.json entry as written: its paths with a
// paths_b64 sibling when one of them is not valid UTF-8.
type saveFieldsB64 struct {
	saveFields
	PathsB64 []string `json:"paths_b64,omitempty"`
}

// MarshalJSON keeps fields a newer version added, and the paths' bytes.
func (s SaveEntry) MarshalJSON() ([]byte, error) {
	v := saveFieldsB64{saveFields: saveFields(s)}
	v.Paths, v.PathsB64 = pathenc.EncodeList(s.Paths)
	return journal.MarshalKnown(&v, s.extra)
}

// UnmarshalJSON remembers fields this version does not know.
func (s *SaveEntry) UnmarshalJSON(data []byte) error {
	var v saveFieldsB64
	extra, err := journal.UnmarshalKnown(data, &v)
	if err != nil {
		return err
	}
	*s = SaveEntry(v.saveFields)
	s.extra = extra
	s.Paths, err = pathenc.DecodeList(v.Paths, v.PathsB64)
	return err
}

// MarshalJSON writes the report, with paths_b64 as in saves.json.
func (r SaveReport) MarshalJSON() ([]byte, error) {
	type plain SaveReport
	v := struct {
		plain
		PathsB64 []string `json:"paths_b64,omitempty"`
	}{plain: plain(r)}
	v.Paths, v.PathsB64 = pathenc.EncodeList(r.Paths)
	return pathenc.Marshal(v)
}

// pathB64Key is how a record with a name that is not UTF-8 shows itself.
var pathB64Key = []byte(`"path_b64"`)

// marshalTask writes a task record (see Task.MarshalJSON).
func marshalTask(t *Task) ([]byte, error) {
	if t.namesValid() {
		return journal.MarshalKnown((*taskFields)(t), t.extra)
	}
	return journal.MarshalKnown(t.wire(), t.extra)
}

// unmarshalTask reads a task record (see Task.UnmarshalJSON).
func unmarshalTask(t *Task, data []byte) error {
	if !bytes.Contains(data, pathB64Key) {
		extra, err := journal.UnmarshalKnown(data, (*taskFields)(t))
		t.extra = extra
		return err
	}
	var w taskWire
	extra, err := journal.UnmarshalKnown(data, &w)
	t.fromWire(&w)
	t.extra = extra
	return err
}
