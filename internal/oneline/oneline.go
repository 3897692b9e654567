// Package oneline holds the one way the suite shortens a message to its
// first line (an error in a one-line warning, a commit subject).
package oneline

import "strings"

// First is s up to its first newline: all of s when it has none.
func First(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
