// Package pathenc carries file names, which are bytes, through JSON and onto
// terminals (README "Exit status and output"). JSON strings hold Unicode text: encoding/json turns
// every byte that is not valid UTF-8 into U+FFFD, so a name such as
// "lat\351.txt" would come back as a different name. A record therefore
// writes such a name as "path": git's C-quoted form (for people) plus
// "path_b64": the raw bytes in standard base64 (for programs), and a reader
// uses path_b64 when present. Valid UTF-8 names are written as before, with
// no path_b64, so existing output stays as it was.
//
// For terminals, Quote spells a name so that it reads back from one line and
// cannot drive the terminal: control characters (C0, DEL, C1), the Unicode
// bidirectional controls and invalid UTF-8 are quoted as git quotes them.
package pathenc

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Encode returns the "path" and "path_b64" values a record writes for p:
// p itself and "" when p is valid UTF-8, otherwise git's C-quoted form and
// the base64 of p's bytes.
func Encode(p string) (path, b64 string) {
	if utf8.ValidString(p) {
		return p, ""
	}
	return CQuote(p), base64.StdEncoding.EncodeToString([]byte(p))
}

// Decode returns the name a record holds as path and (when not nil)
// path_b64.
func Decode(path string, b64 *string) (string, error) {
	if b64 == nil {
		return path, nil
	}
	raw, err := base64.StdEncoding.DecodeString(*b64)
	if err != nil {
		return "", fmt.Errorf("path_b64 of %s is not valid base64: %w", Quote(path), err)
	}
	return string(raw), nil
}

// EncodeList is Encode for a list of names (a "paths" field and its
// "paths_b64" sibling): b64 is nil when every name is valid UTF-8, else it
// holds the base64 of every name, in the same order.
func EncodeList(ps []string) (paths, b64 []string) {
	valid := true
	for _, p := range ps {
		if !utf8.ValidString(p) {
			valid = false
			break
		}
	}
	if valid {
		return ps, nil
	}
	paths = make([]string, len(ps))
	b64 = make([]string, len(ps))
	for i, p := range ps {
		if utf8.ValidString(p) {
			paths[i] = p
		} else {
			paths[i] = CQuote(p)
		}
		b64[i] = base64.StdEncoding.EncodeToString([]byte(p))
	}
	return paths, b64
}

// DecodeList is Decode for a list written by EncodeList.
func DecodeList(paths, b64 []string) ([]string, error) {
	if b64 == nil {
		return paths, nil
	}
	if len(b64) != len(paths) {
		return nil, fmt.Errorf("paths_b64 has %d entries for %d paths", len(b64), len(paths))
	}
	out := make([]string, len(b64))
	for i := range b64 {
		p, err := Decode(paths[i], &b64[i])
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

// Marshal is json.Marshal without HTML escaping, for the MarshalJSON
// methods of records that carry a path ("make > log" stays readable).
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// CQuote returns git's C-quoted form of p, quotes included, as git prints
// a name with core.quotePath on: \a \b \t \n \v \f \r \" \\ and octal
// escapes for other control bytes and for every byte of 0x80 and above.
func CQuote(p string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\v':
			b.WriteString(`\v`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		default:
			if c < 0x20 || c >= 0x7f {
				fmt.Fprintf(&b, `\%03o`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// NeedsQuote reports whether p cannot be shown to a terminal as it is:
// it starts with a double quote, is not valid UTF-8, or holds a control
// character (C0, DEL, C1), a line or paragraph separator, or a Unicode
// bidirectional control (which reorders what follows it on screen).
func NeedsQuote(p string) bool {
	if strings.HasPrefix(p, `"`) || !utf8.ValidString(p) {
		return true
	}
	return strings.IndexFunc(p, Unsafe) >= 0
}

// Unsafe reports whether r must not reach a terminal as it is: C0 and C1
// control characters, DEL, U+2028/U+2029 and the bidirectional controls
// (U+200E, U+200F, U+202A-U+202E, U+2066-U+2069, U+061C).
func Unsafe(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x061c:
		return true
	case r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// Quote returns p as it may be shown to people: unchanged when it is safe,
// else git's C-quoted form (see NeedsQuote).
func Quote(p string) string {
	if NeedsQuote(p) {
		return CQuote(p)
	}
	return p
}

// QuoteInList is Quote for a name shown among others in one message line
// (autodev's refusals list names): a name holding a double quote anywhere,
// or starting with a space, is quoted too, so the list reads back. Display
// quoting has this one owner; nudge.QuotePath is Quote.
func QuoteInList(p string) string {
	if NeedsQuote(p) || strings.ContainsAny(p, "\t\"") || strings.HasPrefix(p, " ") {
		return CQuote(p)
	}
	return p
}

// Text makes free text (a message, a note, a command line) safe for a
// terminal: newlines and tabs stay, every other unsafe character (see
// Unsafe) and every byte that is not valid UTF-8 is replaced by a visible
// escape (\033, \u009b, \u202e), so that nothing in it can move the
// cursor, recolour, retitle or reorder the screen.
func Text(s string) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool { return r != '\n' && r != '\t' && Unsafe(r) }) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\%03o`, s[i])
		case r == '\n' || r == '\t' || !Unsafe(r):
			b.WriteString(s[i : i+n])
		case r < 0x80:
			fmt.Fprintf(&b, `\%03o`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += n
	}
	return b.String()
}

// ShellJoin spells a command's arguments the way a POSIX shell would read
// them back: an argument made only of characters no shell treats specially
// is written as it is, any other inside single quotes (each single quote in
// it written as quote, backslash, quote, quote), and an empty one as two
// single quotes. So `sh -c 'a; b'` shows as typed instead of as
// `sh -c a; b`. The result is meant for display; pass it through Text
// before it reaches a terminal.
func ShellJoin(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
			b.WriteString(a)
			continue
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(a, "'", `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}
