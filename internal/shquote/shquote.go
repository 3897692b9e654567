// Package shquote is the suite's one way to write a word or a command line
// that a POSIX shell reads back exactly: in fix-it hints the user copies,
// and in the scripts the runners hand to sh.
package shquote

import "strings"

// bare reports whether s is read back by sh as itself without quotes:
// non-empty, and only letters, digits and _@%+=:,./- .
func bare(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("_@%+=:,./-", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// Word is s as one shell word: s itself when that is safe, else s in
// single quotes with each ' written as '\”. A word of the form
// NAME=value has only its value quoted (NAME='a b'): sh reads it back the
// same as an argument, and as an assignment before a command.
func Word(s string) string {
	if bare(s) {
		return s
	}
	if n := assignName(s); n > 0 {
		return s[:n+1] + Word(s[n+1:])
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// assignName is the length of NAME in a word NAME=value, where NAME is a
// shell variable name; 0 when s is not such a word.
func assignName(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '=' && i > 0:
			return i
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9' && i > 0:
		default:
			return 0
		}
	}
	return 0
}

// Line is argv as one line that sh splits back into argv. A leading run of
// NAME=value words is read by sh as assignments for the command that
// follows (see Word).
func Line(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = Word(a)
	}
	return strings.Join(q, " ")
}
