package journal

import (
	"bytes"
	"encoding/json"
	"errors"
)

// ErrNotObject is ScanObject's answer for valid JSON that is not an object.
var ErrNotObject = errors.New("not a JSON object")

// errInvalid is ScanObject's answer for data that is not valid JSON.
var errInvalid = errors.New("invalid JSON")

// maxDepth is encoding/json's nesting limit, so that ScanObject accepts
// what json.Unmarshal accepts.
const maxDepth = 10000

// ScanObject checks that data is one valid JSON document, exactly as
// json.Valid does, and when it is an object calls fn with each member's
// key (as written, quotes off, escapes left in) and raw value, in order.
// It is the fast way to read a few fields of a big record: nothing is
// decoded or allocated, and the whole document is still checked, so a
// truncated or garbled file is never half read. fn is called before the
// end of data is checked: a caller keeps nothing from a scan that fails.
// Valid JSON that is not an object returns ErrNotObject; invalid JSON an
// error (not a *CorruptError: the caller names the file); an error from
// fn stops the scan and is returned.
func ScanObject(data []byte, fn func(key, raw []byte) error) error {
	i, empty, err := openContainer(data, '{', '}', ErrNotObject)
	if err != nil || empty {
		return err
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return errInvalid
		}
		kstart := i
		kend, ok := validString(data, i)
		if !ok {
			return errInvalid
		}
		i = skipSpace(data, kend)
		if i >= len(data) || data[i] != ':' {
			return errInvalid
		}
		start := skipSpace(data, i+1)
		end, ok := validValue(data, start, 1)
		if !ok {
			return errInvalid
		}
		if err := fn(data[kstart+1:kend-1], data[start:end]); err != nil {
			return err
		}
		var last bool
		if i, last, err = afterMember(data, end, '}'); err != nil || last {
			return err
		}
	}
}

// EachElement calls fn with each element of the JSON array raw (a value
// ScanObject handed over, so valid JSON), in order, until fn returns
// false. ok is false when raw is not an array or fn stopped.
func EachElement(raw []byte, fn func(elem []byte) bool) (ok bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return true
	}
	for i < len(raw) {
		end := skipValue(raw, i) // raw is valid: no need to check it again
		if end < 0 {
			return false
		}
		if !fn(raw[i:end]) {
			return false
		}
		i = skipSpace(raw, end)
		if i >= len(raw) {
			return false
		}
		if raw[i] == ']' {
			return true
		}
		if raw[i] != ',' {
			return false
		}
		i = skipSpace(raw, i+1)
	}
	return false
}

// validValue returns the index just past the valid JSON value starting
// at data[i] (no leading space), and whether there is one.
func validValue(data []byte, i, depth int) (int, bool) {
	if i >= len(data) {
		return i, false
	}
	switch c := data[i]; c {
	case '"':
		return validString(data, i)
	case '{':
		if depth >= maxDepth {
			return i, false
		}
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == '}' {
			return i + 1, true
		}
		for {
			if i >= len(data) || data[i] != '"' {
				return i, false
			}
			end, ok := validString(data, i)
			if !ok {
				return i, false
			}
			i = skipSpace(data, end)
			if i >= len(data) || data[i] != ':' {
				return i, false
			}
			i = skipSpace(data, i+1)
			if i, ok = validValue(data, i, depth+1); !ok {
				return i, false
			}
			i = skipSpace(data, i)
			if i >= len(data) {
				return i, false
			}
			switch data[i] {
			case ',':
				i = skipSpace(data, i+1)
			case '}':
				return i + 1, true
			default:
				return i, false
			}
		}
	case '[':
		if depth >= maxDepth {
			return i, false
		}
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = validValue(data, i, depth+1); !ok {
				return i, false
			}
			i = skipSpace(data, i)
			if i >= len(data) {
				return i, false
			}
			switch data[i] {
			case ',':
				i = skipSpace(data, i+1)
			case ']':
				return i + 1, true
			default:
				return i, false
			}
		}
	case 't':
		return literal(data, i, "true")
	case 'f':
		return literal(data, i, "false")
	case 'n':
		return literal(data, i, "null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return validNumber(data, i)
		}
		return i, false
	}
}

func literal(data []byte, i int, word string) (int, bool) {
	if len(data)-i < len(word) || string(data[i:i+len(word)]) != word {
		return i, false
	}
	return i + len(word), true
}

// validString returns the index just past the string starting at data[i]
// (a '"'). Like encoding/json it refuses control characters and bad
// escapes, and lets bytes that are not UTF-8 through.
func validString(data []byte, i int) (int, bool) {
	for j := i + 1; j < len(data); j++ {
		for j < len(data) && plainByte[data[j]] {
			j++
		}
		if j >= len(data) {
			break
		}
		switch c := data[j]; {
		case c == '"':
			return j + 1, true
		case c == '\\':
			j++
			if j >= len(data) {
				return j, false
			}
			switch data[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(data)-j < 5 {
					return j, false
				}
				for _, h := range data[j+1 : j+5] {
					if !isHex(h) {
						return j, false
					}
				}
				j += 4
			default:
				return j, false
			}
		case c < 0x20:
			return j, false
		}
	}
	return len(data), false
}

// plainByte is true for the bytes a string holds as they are: not a
// control character, quote or backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// validNumber returns the index just past the number starting at data[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(data []byte, i int) (int, bool) {
	digits := func(j int) int {
		for j < len(data) && data[j] >= '0' && data[j] <= '9' {
			j++
		}
		return j
	}
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		i = digits(i + 1)
	default:
		return i, false
	}
	if i < len(data) && data[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return i, false
		}
		i = j
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

// ScanArray checks that data is one valid JSON document, exactly as
// json.Valid does, and when it is an array calls fn with each element's
// raw bytes, in order. It is the fast way to read a few fields of each
// record of a long journal: the whole file is checked in one pass and
// nothing is decoded. Valid JSON that is not an array returns
// ErrNotArray; fn is called before the end of data is checked, so a
// caller keeps nothing from a scan that fails; an error from fn stops the
// scan and is returned.
func ScanArray(data []byte, fn func(elem []byte) error) error {
	i, empty, err := openContainer(data, '[', ']', ErrNotArray)
	if err != nil || empty {
		return err
	}
	for {
		end, ok := validValue(data, i, 1)
		if !ok {
			return errInvalid
		}
		if err := fn(data[i:end]); err != nil {
			return err
		}
		var last bool
		if i, last, err = afterMember(data, end, ']'); err != nil || last {
			return err
		}
	}
}

// openContainer reads the start of a JSON document that should be a
// container opened by open and closed by close: i is the offset of its
// first member or element; empty is set for a container with none (the
// whole document then checked); a valid document of another kind returns
// notErr, an invalid one errInvalid.
func openContainer(data []byte, open, close byte, notErr error) (i int, empty bool, err error) {
	i = skipSpace(data, 0)
	if i >= len(data) {
		return 0, false, errInvalid
	}
	if data[i] != open {
		end, ok := validValue(data, i, 0)
		if !ok || skipSpace(data, end) != len(data) {
			return 0, false, errInvalid
		}
		return 0, false, notErr
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == close {
		if skipSpace(data, i+1) != len(data) {
			return 0, false, errInvalid
		}
		return i, true, nil
	}
	return i, false, nil
}

// ErrNotArray is ScanArray's answer for valid JSON that is not an array.
var ErrNotArray = errors.New("not a JSON array")

// EachMember calls fn with the key and raw value of each member of the
// JSON object data (valid JSON, as ScanArray hands over), in order; data
// that is not an object has none.
func EachMember(data []byte, fn func(key string, raw []byte)) error { return eachMember(data, fn) }

// MemberStrings sets *into[i] to the string value of the top-level member
// of the JSON object obj (valid JSON, as ScanArray hands over) named
// names[i] (a name written without escapes), and returns how many of
// names it found; a member named twice counts twice. ok is false when obj
// is not an object or a named member's value is not a string. Nothing but
// the strings returned is allocated.
func MemberStrings(obj []byte, names []string, into []*string) (found int, ok bool) {
	m := members{data: obj}
	if i := skipSpace(obj, 0); i >= len(obj) || obj[i] != '{' {
		return 0, false
	}
	for {
		key, raw, more, err := m.next()
		if err != nil {
			return found, false
		}
		if !more {
			return found, true
		}
		for i, n := range names {
			if string(key) != n {
				continue
			}
			found++
			if len(raw) >= 2 && raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0 {
				*into[i] = string(raw[1 : len(raw)-1])
			} else if err := json.Unmarshal(raw, into[i]); err != nil {
				return found, false
			}
		}
	}
}

// afterMember reads what follows a member that ends at end in a container
// closed by close: a comma (i is then the next member's start) or the
// closing byte with nothing but space after it (last).
func afterMember(data []byte, end int, close byte) (i int, last bool, err error) {
	i = skipSpace(data, end)
	switch {
	case i >= len(data):
		return 0, false, errInvalid
	case data[i] == ',':
		return skipSpace(data, i+1), false, nil
	case data[i] == close && skipSpace(data, i+1) == len(data):
		return 0, true, nil
	}
	return 0, false, errInvalid
}
