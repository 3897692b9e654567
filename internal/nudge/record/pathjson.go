package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/pathenc"
)

// Names are bytes (README "Exit status and output"). Every record that
// holds a path writes it with pathenc.Encode ("path", plus "path_b64" when
// the name is not valid UTF-8) and reads it back with pathenc.Decode. Each
// of these entries starts with its path; marshalPath and unmarshalPath do
// this for all of them, so the key order of an entry is path, path_b64,
// then the other fields, including any a later change adds.
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
	PathStateJSON  PathState
	undoFields     Undo
)

// undoWire is Undo with its paths as bytes survive JSON.
type undoWire struct {
	undoFields
	Before []PathStateJSON `json:"before"`
	After  []PathStateJSON `json:"after"`
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
		toW := func(s PathState) PathStateJSON { return PathStateJSON(s) }
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
		fromW := func(s PathStateJSON) PathState { return PathState(s) }
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

// MarshalPath writes *v, whose type's first field is its path (*path,
// "path") and has no MarshalJSON of its own, with that path as
// pathenc.Encode gives it and, for a name that is not valid UTF-8,
// "path_b64" right after it. *path is left encoded: pass a copy.
func MarshalPath[T any](v *T, path *string) ([]byte, error) {
	p, b := pathenc.Encode(*path)
	*path = p
	data, err := pathenc.Marshal(v)
	if err != nil || b == "" {
		return data, err
	}
	q, err := pathenc.Marshal(p)
	if err != nil {
		return nil, err
	}
	head := append([]byte(`{"path":`), q...)
	if !bytes.HasPrefix(data, head) {
		return nil, fmt.Errorf("%T does not start with its path", v)
	}
	out := make([]byte, 0, len(data)+len(b)+len(`,"path_b64":""`))
	out = append(out, head...)
	out = append(out, `,"path_b64":"`...)
	out = append(out, b...)
	out = append(out, '"')
	return append(out, data[len(head):]...), nil
}

// UnmarshalPath reads data into *v, a type with no UnmarshalJSON of its
// own whose path field is *path, and the path back from "path_b64" when
// the record has one. Data that is not such a record leaves *v as it was.
func UnmarshalPath[T any](data []byte, v *T, path *string) error {
	var x T
	if err := json.Unmarshal(data, &x); err != nil {
		return err
	}
	b64, err := PathB64(data)
	if err != nil {
		return err
	}
	*v = x
	p, err := pathenc.Decode(*path, b64)
	*path = p
	return err
}

// PathB64 is a record's "path_b64", nil when it has none.
func PathB64(data []byte) (*string, error) {
	var v struct {
		PathB64 *string `json:"path_b64"`
	}
	err := json.Unmarshal(data, &v)
	return v.PathB64, err
}

// MarshalJSON writes the path as bytes survive JSON.
func (s skippedJSON) MarshalJSON() ([]byte, error) {
	v := Skipped(s)
	return MarshalPath(&v, &v.Path)
}

// UnmarshalJSON reads the path back, from path_b64 when present.
func (s *skippedJSON) UnmarshalJSON(data []byte) error {
	return UnmarshalPath(data, (*Skipped)(s), &s.Path)
}

// MarshalJSON writes the path as bytes survive JSON.
func (f fileChangeJSON) MarshalJSON() ([]byte, error) {
	v := FileChange(f)
	return MarshalPath(&v, &v.Path)
}

// UnmarshalJSON reads the path back, from path_b64 when present.
func (f *fileChangeJSON) UnmarshalJSON(data []byte) error {
	return UnmarshalPath(data, (*FileChange)(f), &f.Path)
}

// MarshalJSON writes the path as bytes survive JSON.
func (s PathStateJSON) MarshalJSON() ([]byte, error) {
	v := PathState(s)
	return MarshalPath(&v, &v.Path)
}

// UnmarshalJSON reads the path back, from path_b64 when present.
func (s *PathStateJSON) UnmarshalJSON(data []byte) error {
	return UnmarshalPath(data, (*PathState)(s), &s.Path)
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
