// Package journal owns the suite's on-disk JSON state: atomic replacement of
// whole files (temp file, fsync, rename, fsync of the folder), corrupt-file
// errors that name the file and never overwrite it, preservation of fields a
// newer version wrote, and process locks that vanish with their holder.
package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/natefinch/atomic"

	"github.com/nudgethis/git-nudge/internal/txn"
)

// CorruptError reports a journal file that exists but cannot be parsed. The
// file is left exactly as it was found.
type CorruptError struct {
	Path string
	Err  error
	// Next, when set, replaces the usual advice (repair or move the file
	// aside, then run the command again) with what to do about this file.
	Next string
}

func (e *CorruptError) Error() string {
	next := e.Next
	if next == "" {
		next = "repair or move it aside, then run the command again"
	}
	return fmt.Sprintf("%s is corrupt (%v); it was left untouched: %s", e.Path, e.Err, next)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// Read decodes the JSON file at path into v. A missing file returns an error
// satisfying errors.Is(err, fs.ErrNotExist); an unparsable one a *CorruptError.
func Read(path string, v any) error {
	data, err := ReadFile(path, nil) // never blocks, never follows a link
	if err != nil {
		return err
	}
	return Decode(path, data, v)
}

// Decode parses data (read from path) into v, strictly: trailing data after
// the JSON value (even a stray "}") is corruption too. v must be a non-nil
// pointer; anything else is a programming error, not a corrupt file.
func Decode(path string, data []byte, v any) error {
	// json.Unmarshal checks the whole input before it stores anything, and
	// unlike a json.Decoder followed by More() it rejects every kind of
	// trailing data.
	err := json.Unmarshal(data, v)
	var inv *json.InvalidUnmarshalError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &inv):
		return fmt.Errorf("decoding %s: %w", path, err)
	default:
		return &CorruptError{Path: path, Err: err}
	}
}

// CheckObject reports, as Decode into a struct would, whether data (read
// from path) is one JSON object and nothing else, without decoding it:
// the common case (a valid object) costs one scan of the bytes instead of
// Decode's two.
func CheckObject(path string, data []byte) error {
	if b := bytes.TrimLeft(data, " \t\r\n"); len(b) > 0 && b[0] == '{' && json.Valid(b) {
		return nil
	}
	return Decode(path, data, &struct{}{}) // the error Decode gives
}

// Write replaces the file at path with v encoded as indented JSON, atomically:
// a reader sees the old file or the new one, never a mix, and after Write
// returns the new content survives a power cut. The file is mode 0644.
func Write(path string, v any) error { return WriteIn(nil, path, v) }

// WriteIn is Write for the command whose transaction is tx: tx (when not
// nil) is told first that path is about to change.
func WriteIn(tx txn.Tx, path string, v any) error {
	data, err := encode(v, "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	txn.JournalChanging(tx, path)
	return writeBytes(path, data)
}

// WriteBytes atomically replaces path with data (see Write). A new file is
// mode 0644 whatever the umask; a rewrite keeps the mode the file had.
func WriteBytes(path string, data []byte) error { return WriteBytesIn(nil, path, data) }

// WriteBytesIn is WriteBytes for the command whose transaction is tx.
func WriteBytesIn(tx txn.Tx, path string, data []byte) error {
	txn.JournalChanging(tx, path)
	return writeBytes(path, data)
}

func writeBytes(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	// The temp file lives in the same folder (a rename never crosses file
	// systems) and gets its final mode before the rename, so the journal
	// is never visible, even after a crash, with the wrong mode.
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	defer tmp.Close()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("writing %s: fsync: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	// natefinch/atomic's ReplaceFile is rename(2) here and MoveFileEx with
	// MOVEFILE_REPLACE_EXISTING|MOVEFILE_WRITE_THROUGH on Windows.
	if err := atomic.ReplaceFile(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := SyncDir(dir); err != nil {
		return err
	}
	// An append note of the file replaced names bytes it no longer has.
	return clearNote(path)
}

// SyncDir fsyncs a folder so that a rename inside it is durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}

// Extra holds the fields of a JSON object that the current schema does not
// know, so that rewriting a record written by a newer version keeps them.
type Extra map[string]json.RawMessage

// UnmarshalKnown decodes data into known (a pointer to a struct, typically an
// alias type without methods) and returns the fields known did not claim.
// A key counts as claimed when encoding/json would store it in known: the
// match is by the struct's JSON field names, ignoring case as json does, and
// whether or not the field is empty.
//
// It is the one codec for records that keep unknown fields, and it is fast
// enough for files of many records: known is decoded by encoding/json
// (which also checks that data is valid JSON), then one pass over the
// object's members, without decoding them, picks out the unclaimed ones.
func UnmarshalKnown(data []byte, known any) (Extra, error) {
	return unmarshalKnown(data, known, false)
}

// UnmarshalValidKnown is UnmarshalKnown for data known to be valid JSON:
// an element SplitArray returned from a document json.Valid accepted. It
// saves checking the record again.
func UnmarshalValidKnown(data []byte, known any) (Extra, error) {
	return unmarshalKnown(data, known, true)
}

// SplitArray returns the raw elements of the JSON array data, which must
// be valid JSON (json.Valid); ok is false when data is not an array.
func SplitArray(data []byte) (elems [][]byte, ok bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return nil, false
	}
	n := 0
	for j := i; j < len(data); j++ {
		if data[j] == '{' { // a hint for the usual array of records
			n++
		}
	}
	elems = make([][]byte, 0, n)
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return elems, true
	}
	for i < len(data) {
		end := skipValue(data, i)
		if end < 0 {
			return nil, false
		}
		elems = append(elems, data[i:end])
		i = skipSpace(data, end)
		if i >= len(data) {
			return nil, false
		}
		if data[i] == ']' {
			return elems, true
		}
		if data[i] != ',' {
			return nil, false
		}
		i = skipSpace(data, i+1)
	}
	return nil, false
}

func unmarshalKnown(data []byte, known any, valid bool) (Extra, error) {
	if extra, ok := unmarshalPlain(data, known, valid); ok {
		return extra, nil
	}
	if err := json.Unmarshal(data, known); err != nil {
		return nil, err
	}
	claimed, err := fieldNames(known)
	if err != nil {
		return nil, err
	}
	var extra Extra
	err = eachMember(data, func(k string, raw []byte) {
		if claimed[k] {
			return
		}
		for c := range claimed {
			if strings.EqualFold(c, k) {
				return
			}
		}
		if extra == nil {
			extra = Extra{}
		}
		extra[k] = append(json.RawMessage(nil), raw...)
	})
	if err != nil {
		return nil, err
	}
	return extra, nil
}

// plainPlan maps the JSON keys of a struct type to the indexes of its
// string and *string fields; other fields are absent.
type plainPlan struct {
	fields map[string][]int
	ptr    map[string]bool
	names  map[string]bool
}

var plainPlans sync.Map // reflect.Type -> *plainPlan

func planOf(t reflect.Type) *plainPlan {
	if p, ok := plainPlans.Load(t); ok {
		return p.(*plainPlan)
	}
	names := map[string]bool{}
	structKeys(t, names, 0)
	p := &plainPlan{fields: map[string][]int{}, ptr: map[string]bool{}, names: names}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || f.Anonymous || name == "" || name == "-" || !names[name] {
			continue
		}
		switch {
		case f.Type.Kind() == reflect.String:
			p.fields[name] = f.Index
		case f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.String:
			p.fields[name] = f.Index
			p.ptr[name] = true
		}
	}
	plainPlans.Store(t, p)
	return p
}

// unmarshalPlain is UnmarshalKnown's fast path for the usual record: a
// valid JSON object whose known members are strings without escapes (or
// null, for a *string) under their exact names. It stores them straight
// into the struct and keeps the other members as they are. ok is false,
// with nothing stored, for anything else, which encoding/json then decodes.
func unmarshalPlain(data []byte, known any, valid bool) (Extra, bool) {
	v := reflect.ValueOf(known)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil, false
	}
	start := skipSpace(data, 0)
	if start >= len(data) || data[start] != '{' || (!valid && !json.Valid(data)) {
		return nil, false
	}
	p := planOf(v.Elem().Type())
	type set struct {
		index []int
		ptr   bool
		null  bool
		raw   []byte // the string's bytes, quotes off
	}
	var buf [24]set
	sets := buf[:0]
	var extra Extra
	it := members{data: data}
	for {
		key, raw, more, err := it.next()
		if err != nil {
			return nil, false
		}
		if !more {
			break
		}
		index, isPlain := p.fields[string(key)]
		if !isPlain {
			k := string(key)
			if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
				return nil, false
			}
			if p.names[k] {
				return nil, false // known but not a plain string: encoding/json's job
			}
			for c := range p.names {
				if strings.EqualFold(c, k) {
					return nil, false // json matches keys without case
				}
			}
			if extra == nil {
				extra = Extra{}
			}
			extra[k] = append(json.RawMessage(nil), raw...)
			continue
		}
		if string(raw) == "null" {
			sets = append(sets, set{index: index, ptr: p.ptr[string(key)], null: true})
			continue
		}
		if raw[0] != '"' || bytes.IndexByte(raw, '\\') >= 0 || !utf8.Valid(raw) {
			return nil, false
		}
		sets = append(sets, set{index: index, ptr: p.ptr[string(key)], raw: raw[1 : len(raw)-1]})
	}
	st := v.Elem()
	for _, s := range sets {
		f := st.FieldByIndex(s.index)
		switch {
		case s.ptr && s.null:
			f.SetZero()
		case s.ptr:
			str := string(s.raw)
			f.Set(reflect.ValueOf(&str))
		case !s.null:
			f.SetString(string(s.raw))
		}
		// null into a string leaves it as it was, as encoding/json does.
	}
	return extra, true
}

// members walks the members of a JSON object (see eachMember).
type members struct {
	data    []byte
	i       int
	started bool
}

// next returns the next member's key (as written, quotes off) and raw
// value; more is false after the last.
func (m *members) next() (key, raw []byte, more bool, err error) {
	bad := errors.New("malformed JSON object")
	data := m.data
	i := m.i
	if !m.started {
		m.started = true
		i = skipSpace(data, 0)
		if i >= len(data) || data[i] != '{' {
			return nil, nil, false, nil
		}
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == '}' {
			m.i = len(data)
			return nil, nil, false, nil
		}
	} else {
		i = skipSpace(data, i)
		if i >= len(data) {
			return nil, nil, false, nil
		}
		if data[i] == '}' {
			m.i = len(data)
			return nil, nil, false, nil
		}
		if data[i] != ',' {
			return nil, nil, false, bad
		}
		i = skipSpace(data, i+1)
	}
	if i >= len(data) || data[i] != '"' {
		return nil, nil, false, bad
	}
	end := skipString(data, i)
	if end < 0 {
		return nil, nil, false, bad
	}
	key = data[i+1 : end-1]
	i = skipSpace(data, end)
	if i >= len(data) || data[i] != ':' {
		return nil, nil, false, bad
	}
	start := skipSpace(data, i+1)
	end = skipValue(data, start)
	if end < 0 {
		return nil, nil, false, bad
	}
	m.i = end
	return key, data[start:end], true, nil
}

// eachMember calls fn with the key and the raw value of each member of the
// JSON object data, in order; data that is not an object (null) has none.
// data must be valid JSON (UnmarshalKnown has had encoding/json check it);
// what is not is an error, never a panic.
func eachMember(data []byte, fn func(key string, raw []byte)) error {
	bad := errors.New("malformed JSON object")
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return nil
	}
	for i < len(data) {
		if data[i] != '"' {
			return bad
		}
		end := skipString(data, i)
		if end < 0 {
			return bad
		}
		quoted := data[i:end]
		key := string(quoted[1 : len(quoted)-1])
		if bytes.IndexByte(quoted, '\\') >= 0 || !utf8.Valid(quoted) {
			if err := json.Unmarshal(quoted, &key); err != nil {
				return err
			}
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return bad
		}
		start := skipSpace(data, i+1)
		end = skipValue(data, start)
		if end < 0 {
			return bad
		}
		fn(key, data[start:end])
		i = skipSpace(data, end)
		if i >= len(data) {
			return bad
		}
		if data[i] == '}' {
			return nil
		}
		if data[i] != ',' {
			return bad
		}
		i = skipSpace(data, i+1)
	}
	return bad
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at data[i]
// (a '"'), or -1.
func skipString(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the index just past the value starting at data[i], or -1.
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				j = skipString(data, j)
				if j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(data) && !strings.ContainsRune(",}] \t\r\n", rune(data[j])) {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// MarshalKnown encodes known and adds the extra fields it does not itself set.
func MarshalKnown(known any, extra Extra) ([]byte, error) {
	data, err := Marshal(known)
	if err != nil || len(extra) == 0 {
		return data, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	for k, v := range extra {
		if _, ok := obj[k]; !ok {
			obj[k] = v
		}
	}
	return Marshal(obj)
}

// Marshal is json.Marshal without HTML escaping: journals and --json output
// are read by people and scripts, not embedded in web pages, so a command
// like "make > log" stays readable instead of becoming "make \u003e log".
func Marshal(v any) ([]byte, error) {
	data, err := encode(v, "")
	return bytes.TrimSuffix(data, []byte("\n")), err
}

// encode writes v as JSON (indented when indent is set) with a final newline.
func encode(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// structNames caches fieldNames of struct types (read-only once stored).
var structNames sync.Map

// fieldNames lists the JSON keys known decodes. For a struct they come from
// its type (so fields left out by omitempty count too); for anything else,
// from what known encodes to.
func fieldNames(known any) (map[string]bool, error) {
	t := reflect.TypeOf(known)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && t.Kind() == reflect.Struct {
		if names, ok := structNames.Load(t); ok {
			return names.(map[string]bool), nil
		}
		names := map[string]bool{}
		structKeys(t, names, 0)
		structNames.Store(t, names)
		return names, nil
	}
	data, err := json.Marshal(known)
	if err != nil {
		return nil, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	names := make(map[string]bool, len(obj))
	for k := range obj {
		names[k] = true
	}
	return names, nil
}

// structKeys adds the JSON keys of struct type t, following encoding/json's
// rules: `json:"-"` hides a field, a tag name renames it, an untagged
// embedded struct lends its fields.
func structKeys(t reflect.Type, names map[string]bool, depth int) {
	if depth > 8 {
		return
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				structKeys(ft, names, depth+1)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names[name] = true
	}
}
