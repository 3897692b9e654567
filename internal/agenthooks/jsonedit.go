package agenthooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The settings files are edited as text, never re-encoded: the document is
// scanned into nodes that remember their byte offsets, and an edit splices
// text in or cuts it out. Every byte outside the edit stays as it was (key
// order, indentation, spacing, escapes, number spellings, a missing final
// newline), and removing a member install added gives back the original
// bytes.

// node is one JSON value and where it sits in the text.
type node struct {
	kind       byte // '{' object, '[' array, 's' string, 'n' number, 'l' true/false/null
	start, end int  // [start, end) in the text
	members    []member
	elems      []*node
	str        string // a string's decoded value
}

type member struct {
	key      string
	keyStart int
	keyEnd   int
	val      *node
}

// get returns the value of key in an object (the last one when a key is
// repeated, as JSON parsers do), or nil.
func (n *node) get(key string) *node {
	if n == nil || n.kind != '{' {
		return nil
	}
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return n.members[i].val
		}
	}
	return nil
}

func (n *node) index(key string) int {
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return i
		}
	}
	return -1
}

// SyntaxError says where a settings file stops being JSON.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

const maxDepth = 512

type scanner struct {
	src      string
	pos      int
	comments bool // accept // and /* */ comments as white space (JSONC)
	depth    int
}

func (s *scanner) fail(msg string) error {
	line, col := 1, 1
	for _, r := range s.src[:min(s.pos, len(s.src))] {
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &SyntaxError{Line: line, Col: col, Msg: msg}
}

// parseDocument scans src as one JSON value followed only by white space.
func parseDocument(src string, comments bool) (*node, error) {
	s := &scanner{src: src, comments: comments}
	if err := s.space(); err != nil {
		return nil, err
	}
	n, err := s.value()
	if err != nil {
		return nil, err
	}
	if err := s.space(); err != nil {
		return nil, err
	}
	if s.pos != len(s.src) {
		return nil, s.fail("unexpected text after the end of the document")
	}
	return n, nil
}

func (s *scanner) space() error {
	for s.pos < len(s.src) {
		switch c := s.src[s.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			s.pos++
		case c == '/' && s.comments && strings.HasPrefix(s.src[s.pos:], "//"):
			if i := strings.IndexByte(s.src[s.pos:], '\n'); i >= 0 {
				s.pos += i
			} else {
				s.pos = len(s.src)
			}
		case c == '/' && s.comments && strings.HasPrefix(s.src[s.pos:], "/*"):
			i := strings.Index(s.src[s.pos+2:], "*/")
			if i < 0 {
				return s.fail("unterminated comment")
			}
			s.pos += i + 4
		default:
			return nil
		}
	}
	return nil
}

func (s *scanner) value() (*node, error) {
	if s.pos >= len(s.src) {
		return nil, s.fail("unexpected end of the document")
	}
	switch c := s.src[s.pos]; {
	case c == '{':
		return s.object()
	case c == '[':
		return s.array()
	case c == '"':
		start := s.pos
		str, err := s.string()
		if err != nil {
			return nil, err
		}
		return &node{kind: 's', start: start, end: s.pos, str: str}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if strings.HasPrefix(s.src[s.pos:], lit) {
				n := &node{kind: 'l', start: s.pos, end: s.pos + len(lit)}
				s.pos += len(lit)
				return n, nil
			}
		}
		return nil, s.fail(fmt.Sprintf("unexpected character %q", c))
	}
}

func (s *scanner) enter() error {
	s.depth++
	if s.depth > maxDepth {
		return s.fail("nested too deeply")
	}
	return nil
}

func (s *scanner) object() (*node, error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer func() { s.depth-- }()
	n := &node{kind: '{', start: s.pos}
	s.pos++
	if err := s.space(); err != nil {
		return nil, err
	}
	if s.pos < len(s.src) && s.src[s.pos] == '}' {
		s.pos++
		n.end = s.pos
		return n, nil
	}
	for {
		if s.pos >= len(s.src) || s.src[s.pos] != '"' {
			return nil, s.fail("expected a key in double quotes")
		}
		keyStart := s.pos
		key, err := s.string()
		if err != nil {
			return nil, err
		}
		keyEnd := s.pos
		if err := s.space(); err != nil {
			return nil, err
		}
		if s.pos >= len(s.src) || s.src[s.pos] != ':' {
			return nil, s.fail("expected ':' after a key")
		}
		s.pos++
		if err := s.space(); err != nil {
			return nil, err
		}
		v, err := s.value()
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, member{key: key, keyStart: keyStart, keyEnd: keyEnd, val: v})
		if err := s.space(); err != nil {
			return nil, err
		}
		if s.pos >= len(s.src) {
			return nil, s.fail("unexpected end of the document inside an object")
		}
		switch s.src[s.pos] {
		case ',':
			s.pos++
			if err := s.space(); err != nil {
				return nil, err
			}
		case '}':
			s.pos++
			n.end = s.pos
			return n, nil
		default:
			return nil, s.fail("expected ',' or '}' in an object")
		}
	}
}

func (s *scanner) array() (*node, error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer func() { s.depth-- }()
	n := &node{kind: '[', start: s.pos}
	s.pos++
	if err := s.space(); err != nil {
		return nil, err
	}
	if s.pos < len(s.src) && s.src[s.pos] == ']' {
		s.pos++
		n.end = s.pos
		return n, nil
	}
	for {
		v, err := s.value()
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		if err := s.space(); err != nil {
			return nil, err
		}
		if s.pos >= len(s.src) {
			return nil, s.fail("unexpected end of the document inside an array")
		}
		switch s.src[s.pos] {
		case ',':
			s.pos++
			if err := s.space(); err != nil {
				return nil, err
			}
		case ']':
			s.pos++
			n.end = s.pos
			return n, nil
		default:
			return nil, s.fail("expected ',' or ']' in an array")
		}
	}
}

// string scans a string token and decodes it with encoding/json (which
// knows every escape); the scan itself checks the token's shape.
func (s *scanner) string() (string, error) {
	start := s.pos
	s.pos++
	for {
		if s.pos >= len(s.src) {
			return "", s.fail("unterminated string")
		}
		c := s.src[s.pos]
		switch {
		case c == '"':
			s.pos++
			var out string
			if err := json.Unmarshal([]byte(s.src[start:s.pos]), &out); err != nil {
				s.pos = start
				return "", s.fail("invalid string")
			}
			return out, nil
		case c == '\\':
			s.pos += 2
		case c < 0x20:
			return "", s.fail("control character in a string")
		default:
			_, size := utf8.DecodeRuneInString(s.src[s.pos:])
			s.pos += size
		}
	}
}

func (s *scanner) number() (*node, error) {
	start := s.pos
	digits := func() int {
		n := 0
		for s.pos < len(s.src) && s.src[s.pos] >= '0' && s.src[s.pos] <= '9' {
			s.pos++
			n++
		}
		return n
	}
	if s.src[s.pos] == '-' {
		s.pos++
	}
	if s.pos < len(s.src) && s.src[s.pos] == '0' {
		s.pos++
	} else if digits() == 0 {
		return nil, s.fail("invalid number")
	}
	if s.pos < len(s.src) && s.src[s.pos] == '.' {
		s.pos++
		if digits() == 0 {
			return nil, s.fail("invalid number")
		}
	}
	if s.pos < len(s.src) && (s.src[s.pos] == 'e' || s.src[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.src) && (s.src[s.pos] == '+' || s.src[s.pos] == '-') {
			s.pos++
		}
		if digits() == 0 {
			return nil, s.fail("invalid number")
		}
	}
	return &node{kind: 'n', start: start, end: s.pos}, nil
}

// style is how a file writes JSON, learnt from the file itself so that
// inserted text looks like the rest.
type style struct {
	indent string // one level ("  ", "    ", "\t")
	nl     string // "\n" or "\r\n"
	colon  string // between a key and its value: ": " or ":"...
	pretty bool   // the document spans several lines
}

func learnStyle(src string, root *node) style {
	st := style{indent: "  ", nl: "\n", colon: ": ", pretty: true}
	if strings.Contains(src, "\r\n") {
		st.nl = "\r\n"
	}
	if root != nil && root.kind == '{' {
		st.pretty = strings.Contains(src[root.start:root.end], "\n") || len(root.members) == 0
	}
	if m := firstMember(root); m != nil {
		st.colon = src[m.keyEnd:m.val.start]
		if strings.ContainsAny(st.colon, "\r\n") {
			st.colon = ": "
		}
	}
	if root != nil && root.kind == '{' && len(root.members) > 0 {
		k := root.members[0].keyStart
		if i := strings.LastIndexByte(src[:k], '\n'); i >= 0 && i >= root.start {
			if ws := src[i+1 : k]; ws != "" && strings.Trim(ws, " \t") == "" {
				st.indent = ws
			}
		}
	}
	return st
}

func firstMember(n *node) *member {
	if n == nil {
		return nil
	}
	if n.kind == '{' && len(n.members) > 0 {
		return &n.members[0]
	}
	for _, e := range n.elems {
		if m := firstMember(e); m != nil {
			return m
		}
	}
	return nil
}

// value is what install writes: an ordered object, an array or a scalar.
type value any

// object keeps its keys in order.
type object []field

type field struct {
	key string
	val value
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	// json.Marshal escapes <, > and & for HTML; settings files do not.
	out := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(b))
	return out
}

// render writes v at nesting depth d in the file's style (pretty or on one
// line).
func (st style) render(v value, d int, pretty bool) string {
	var b strings.Builder
	st.write(&b, v, d, pretty)
	return b.String()
}

func (st style) write(b *strings.Builder, v value, d int, pretty bool) {
	sep := ", "
	if st.colon == ":" {
		sep = ","
	}
	switch v := v.(type) {
	case object:
		if len(v) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{")
		for i, f := range v {
			if i > 0 {
				if pretty {
					b.WriteString(",")
				} else {
					b.WriteString(sep)
				}
			}
			if pretty {
				b.WriteString(st.nl + strings.Repeat(st.indent, d+1))
			}
			b.WriteString(quote(f.key) + st.colon)
			st.write(b, f.val, d+1, pretty)
		}
		if pretty {
			b.WriteString(st.nl + strings.Repeat(st.indent, d))
		}
		b.WriteString("}")
	case []value:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[")
		for i, e := range v {
			if i > 0 {
				if pretty {
					b.WriteString(",")
				} else {
					b.WriteString(sep)
				}
			}
			if pretty {
				b.WriteString(st.nl + strings.Repeat(st.indent, d+1))
			}
			st.write(b, e, d+1, pretty)
		}
		if pretty {
			b.WriteString(st.nl + strings.Repeat(st.indent, d))
		}
		b.WriteString("]")
	case string:
		b.WriteString(quote(v))
	case int:
		b.WriteString(strconv.Itoa(v))
	case bool:
		b.WriteString(strconv.FormatBool(v))
	}
}

// edit is one splice: replace src[start:end] with text.
type edit struct {
	start, end int
	text       string
}

func (e edit) apply(src string) string { return src[:e.start] + e.text + src[e.end:] }

// multiline reports whether a container is written over several lines.
func multiline(src string, n *node) bool {
	return strings.Contains(src[n.start:n.end], "\n")
}

// addMember adds key: v as the last member of obj, which sits at depth d.
func (st style) addMember(src string, obj *node, d int, key string, v value) edit {
	if len(obj.members) == 0 {
		if !st.pretty {
			return edit{obj.start + 1, obj.end - 1, quote(key) + st.colon + st.render(v, d+1, false)}
		}
		in := st.nl + strings.Repeat(st.indent, d+1)
		return edit{obj.start + 1, obj.end - 1, in + quote(key) + st.colon + st.render(v, d+1, true) + st.nl + strings.Repeat(st.indent, d)}
	}
	last := obj.members[len(obj.members)-1]
	if multiline(src, obj) {
		in := st.nl + strings.Repeat(st.indent, d+1)
		return edit{last.val.end, last.val.end, "," + in + quote(key) + st.colon + st.render(v, d+1, true)}
	}
	return edit{last.val.end, last.val.end, st.itemSep() + quote(key) + st.colon + st.render(v, d+1, false)}
}

// addElem appends v to arr, which sits at depth d.
func (st style) addElem(src string, arr *node, d int, v value) edit {
	if len(arr.elems) == 0 {
		if !st.pretty {
			return edit{arr.start + 1, arr.end - 1, st.render(v, d+1, false)}
		}
		in := st.nl + strings.Repeat(st.indent, d+1)
		return edit{arr.start + 1, arr.end - 1, in + st.render(v, d+1, true) + st.nl + strings.Repeat(st.indent, d)}
	}
	last := arr.elems[len(arr.elems)-1]
	if multiline(src, arr) {
		in := st.nl + strings.Repeat(st.indent, d+1)
		return edit{last.end, last.end, "," + in + st.render(v, d+1, true)}
	}
	return edit{last.end, last.end, st.itemSep() + st.render(v, d+1, false)}
}

func (st style) itemSep() string {
	if st.colon == ":" {
		return ","
	}
	return ", "
}

// removeMember cuts member i out of obj with the separator that joins it
// to its neighbours, the exact inverse of addMember.
func removeMember(obj *node, i int) edit {
	switch {
	case len(obj.members) == 1:
		return edit{obj.start + 1, obj.end - 1, ""}
	case i == len(obj.members)-1:
		return edit{obj.members[i-1].val.end, obj.members[i].val.end, ""}
	default:
		return edit{obj.members[i].keyStart, obj.members[i+1].keyStart, ""}
	}
}

// removeElem cuts element i out of arr, the inverse of addElem.
func removeElem(arr *node, i int) edit {
	switch {
	case len(arr.elems) == 1:
		return edit{arr.start + 1, arr.end - 1, ""}
	case i == len(arr.elems)-1:
		return edit{arr.elems[i-1].end, arr.elems[i].end, ""}
	default:
		return edit{arr.elems[i].start, arr.elems[i+1].start, ""}
	}
}

var errNotObject = errors.New("the document is not a JSON object")
