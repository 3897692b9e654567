package gitexec

import "testing"

// Paths fed to git on stdin are quoted as git unquotes them only when a
// plain line would not carry them intact.
func TestQuoteStdinPath(t *testing.T) {
	for in, want := range map[string]string{"a b": "a b", "a\nb": `"a\nb"`, `"x`: `"\"x"`, "c\r": `"c\015"`, `a\b`: `a\b`, "t\tq\"\\": `"t\tq\"\\"`} {
		if got := QuoteStdinPath(in); got != want {
			t.Errorf("QuoteStdinPath(%q) = %s, want %s", in, got, want)
		}
	}
}
