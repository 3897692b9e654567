package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// TaskSummary is what git nudge list shows of a task: read from the
// record without decoding the rest of it (the patch, the undo record), so
// that listing a thousand tasks costs about what reading their files does.
type TaskSummary struct {
	ID      string
	State   string
	Note    string
	Created time.Time
	Branch  *string // full ref name; nil when detached
	Command []string
	// HasResult is true when the task has a result (Task.Result is set).
	HasResult bool
	// Files is how many paths the task's patch has (len(Task.Files)).
	Files int
	// Validation is the state of the task's validation (Task.Validation.State),
	// "" when it has none.
	Validation string
	PID        *int
	CommandPID *int
	// Applied is how many paths of the patch the undo record holds
	// (len(Task.Undo.After)); Conflicts whether an apply --conflicts
	// wrote conflict markers (Task.Conflicts).
	Applied   int
	Conflicts bool
}

// Label is the task's state for people (Task.Label).
func (s *TaskSummary) Label() string {
	t := Task{State: s.State, Files: make([]FileChange, s.Files)}
	if s.Applied > 0 {
		t.Undo = &Undo{After: make([]PathState, s.Applied)}
	}
	if s.Conflicts {
		t.Conflicts = []string{""}
	}
	return t.Label()
}

// Summary is the summary of a record already read in full.
func (t *Task) Summary() *TaskSummary {
	s := &TaskSummary{ID: t.ID, State: t.State, Note: t.Note, Created: t.Created, Branch: t.Branch, Command: t.Command,
		HasResult: t.Result != nil, Files: len(t.Files), PID: t.PID, CommandPID: t.CommandPID, Conflicts: len(t.Conflicts) > 0}
	if t.Undo != nil {
		s.Applied = len(t.Undo.After)
	}
	if t.Validation != nil {
		s.Validation = t.Validation.State
	}
	return s
}

// DecodeSummary reads the summary of the task record data (read from
// path). It gives what decoding the whole record and calling Summary
// gives, and fails (a *journal.CorruptError) where that fails, except
// for a value of the wrong type nested inside a field the summary does
// not read (a number as a path of the patch, say): the commands that read
// that field report it.
func DecodeSummary(path string, data []byte) (*TaskSummary, error) {
	if s, ok := fastSummary(data); ok {
		return s, nil
	}
	var t Task
	if err := journal.Decode(path, data, &t); err != nil {
		return nil, err
	}
	return t.Summary(), nil
}

// JSON kinds a top-level field of a task record may hold (null always).
const (
	kString = 1 << iota
	kNumber
	kBool
	kArray
	kObject
)

// summaryKinds maps each JSON key of a task record to the kinds its Go
// field decodes from.
var summaryKinds = sync.OnceValue(func() map[string]int {
	kinds := map[string]int{}
	t := reflect.TypeOf(taskFields{})
	timeType := reflect.TypeOf(time.Time{})
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft == timeType || ft.Kind() == reflect.String:
			kinds[name] = kString
		case ft.Kind() == reflect.Bool:
			kinds[name] = kBool
		case ft.Kind() >= reflect.Int && ft.Kind() <= reflect.Float64:
			kinds[name] = kNumber
		case ft.Kind() == reflect.Slice:
			kinds[name] = kArray
		case ft.Kind() == reflect.Struct:
			kinds[name] = kObject
		default:
			kinds[name] = -1 // any: left to encoding/json
		}
	}
	return kinds
})

func kindOf(raw []byte) int {
	switch raw[0] {
	case '"':
		return kString
	case '[':
		return kArray
	case '{':
		return kObject
	case 't', 'f':
		return kBool
	case 'n':
		return 0 // null
	}
	return kNumber
}

// fastSummary reads the summary's fields of the usual record: a valid
// JSON object whose keys are written plainly, once each, exactly as this
// version writes them. ok is false for anything else, and for values that
// are not of their field's type: DecodeSummary then decodes the record
// in full (which says what is wrong with it, or handles what this does
// not).
func fastSummary(data []byte) (*TaskSummary, bool) {
	kinds := summaryKinds()
	s := &TaskSummary{}
	var seen uint32 // summary fields met so far, by summaryBit
	err := journal.ScanObject(data, func(key, raw []byte) error {
		k := string(key)
		want, known := kinds[k]
		if !known {
			for _, c := range key {
				if c == '\\' || c >= utf8.RuneSelf {
					return errSlow // escapes, or a key json may fold to a known one
				}
			}
			for c := range kinds {
				if strings.EqualFold(c, k) {
					return errSlow // json matches keys without regard to case
				}
			}
			return nil // a field a newer version added
		}
		got := kindOf(raw)
		if got != 0 && want != -1 && got&want == 0 {
			return errSlow
		}
		bit := summaryBit(k)
		if bit == 0 {
			return nil // not a summary field
		}
		if seen&bit != 0 {
			return errSlow // twice: json's rules for that are left to json
		}
		seen |= bit
		if got == 0 && (k == "id" || k == "state" || k == "note" || k == "created") {
			return nil // null leaves a string (or time) as it was
		}
		var ok bool
		switch k {
		case "id":
			s.ID, ok = plainString(raw)
		case "state":
			s.State, ok = plainString(raw)
		case "note":
			s.Note, ok = plainString(raw)
		case "created":
			ok = s.Created.UnmarshalJSON(raw) == nil
		case "branch":
			s.Branch, ok = optString(raw)
		case "result":
			s.HasResult, ok = got != 0, true
		case "command":
			s.Command, ok = stringList(raw)
		case "files":
			s.Files, ok = 0, true
			if got != 0 {
				ok = journal.EachElement(raw, func(e []byte) bool {
					s.Files++
					return e[0] == '{' || e[0] == 'n'
				})
			}
		case "validation":
			s.Validation, ok = "", true
			if got != 0 {
				var v Validation
				ok = json.Unmarshal(raw, &v) == nil
				s.Validation = v.State
			}
		case "undo":
			s.Applied, ok = 0, true
			if got != 0 {
				ok = journal.ScanObject(raw, func(key, v []byte) error {
					if string(key) == "after" && v[0] == '[' {
						journal.EachElement(v, func([]byte) bool { s.Applied++; return true })
					}
					return nil
				}) == nil
			}
		case "conflicts":
			s.Conflicts, ok = got != 0 && len(bytes.TrimSpace(raw)) > 2, true
		case "pid":
			s.PID, ok = optInt(raw)
		case "command_pid":
			s.CommandPID, ok = optInt(raw)
		}
		if !ok {
			return errSlow
		}
		return nil
	})
	if err != nil {
		return nil, false
	}
	return s, true
}

var errSlow = errors.New("decode the record in full")

// summaryBit is a bit of its own for each field fastSummary reads, 0 for
// the others.
func summaryBit(k string) uint32 {
	for i, name := range summaryFields {
		if name == k {
			return 1 << i
		}
	}
	return 0
}

var summaryFields = [...]string{"id", "state", "note", "created", "branch", "result", "command", "files", "validation", "pid", "command_pid", "undo", "conflicts"}

// plainString decodes a JSON string, quickly when it has no escapes.
func plainString(raw []byte) (string, bool) {
	if body := raw[1 : len(raw)-1]; bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body), true
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err == nil
}

func optString(raw []byte) (*string, bool) {
	if raw[0] == 'n' {
		return nil, true
	}
	s, ok := plainString(raw)
	return &s, ok
}

func stringList(raw []byte) ([]string, bool) {
	if raw[0] == 'n' {
		return nil, true
	}
	list := []string{}
	ok := journal.EachElement(raw, func(e []byte) bool {
		if e[0] != '"' {
			return false
		}
		s, ok := plainString(e)
		list = append(list, s)
		return ok
	})
	return list, ok
}

func optInt(raw []byte) (*int, bool) {
	if raw[0] == 'n' {
		return nil, true
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil {
		var p *int
		if json.Unmarshal(raw, &p) != nil {
			return nil, false
		}
		return p, true
	}
	return &n, true
}
