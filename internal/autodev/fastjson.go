package autodev

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// fastEntries parses checkpoints.json when it has exactly the shape this
// version writes: an array of objects whose keys are the known fields and
// whose values are strings or null. Anything else (unknown fields, other
// value types, odd syntax) returns ok=false and the caller decodes with
// encoding/json, which keeps unknown fields and reports corruption. The
// list of 10,000 checkpoints must print in well under 0.2 s, and
// encoding/json's reflection spends most of that.
func fastEntries(data []byte) (entries []Entry, ok bool) {
	// One conversion; every value is then a substring of it.
	p := &scanner{b: string(data)}
	p.ws()
	if !p.eat('[') {
		return nil, false
	}
	entries = make([]Entry, 0, strings.Count(p.b, "{"))
	p.ws()
	if p.eat(']') {
		return entries, p.end()
	}
	for {
		e, ok := p.entry()
		if !ok {
			return nil, false
		}
		entries = append(entries, e)
		p.ws()
		if p.eat(']') {
			return entries, p.end()
		}
		if !p.eat(',') {
			return nil, false
		}
		p.ws()
	}
}

type scanner struct {
	b string
	i int
}

func (p *scanner) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *scanner) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *scanner) end() bool {
	p.ws()
	return p.i == len(p.b)
}

// entry parses one {"key": "value"|null, ...} object.
func (p *scanner) entry() (Entry, bool) {
	var e Entry
	if !p.eat('{') {
		return e, false
	}
	p.ws()
	if p.eat('}') {
		return e, true
	}
	for {
		p.ws()
		key, ok := p.str()
		if !ok {
			return e, false
		}
		p.ws()
		if !p.eat(':') {
			return e, false
		}
		p.ws()
		var val *string
		if p.i+4 <= len(p.b) && p.b[p.i:p.i+4] == "null" {
			p.i += 4
		} else {
			s, ok := p.str()
			if !ok {
				return e, false
			}
			val = &s
		}
		switch key {
		case "id":
			e.ID = deref(val)
		case "commit":
			e.Commit = deref(val)
		case "label":
			e.Label = deref(val)
		case "type":
			e.Type = deref(val)
		case "time":
			e.Time = deref(val)
		case "task":
			e.Task = val
		case "mode":
			e.Mode = val
		case "worktree":
			e.Worktree = deref(val)
		case "branch":
			e.Branch = deref(val)
		default:
			return e, false // an unknown field: the slow path keeps it
		}
		p.ws()
		if p.eat('}') {
			return e, true
		}
		if !p.eat(',') {
			return e, false
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// str parses a JSON string. Escapes are handed to encoding/json; raw
// control characters and invalid UTF-8 fail (for the slow path to judge).
func (p *scanner) str() (string, bool) {
	if !p.eat('"') {
		return "", false
	}
	start, escaped := p.i, false
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			raw := p.b[start:p.i]
			p.i++
			if escaped {
				var s string
				if err := json.Unmarshal([]byte(p.b[start-1:p.i]), &s); err != nil {
					return "", false
				}
				return s, true
			}
			if !utf8.ValidString(raw) {
				return "", false
			}
			return raw, true
		case c == '\\':
			escaped = true
			p.i += 2
			continue
		case c < 0x20:
			return "", false
		}
		p.i++
	}
	return "", false
}
