package oneline

import "testing"

func TestFirst(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "", "one": "one", "one\ntwo": "one", "\ntwo": "", "a b\r\nc": "a b\r"} {
		if got := First(in); got != want {
			t.Errorf("First(%q) = %q, want %q", in, got, want)
		}
	}
}
