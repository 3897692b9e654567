package gitstore

import "testing"

// ParseConfigInt reads plain decimals with a unit as git does and leaves
// every other spelling (octal, hex, words, spaces) to git.
func TestParseConfigInt(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]int64{"10": 10, "2k": 2048, "1m": 1 << 20, "3G": 3 << 30, "-1": -1, "0": 0} {
		if got, ok := ParseConfigInt(s); !ok || got != want {
			t.Errorf("ParseConfigInt(%q) = %d, %v; want %d", s, got, ok, want)
		}
	}
	for _, s := range []string{"lots", "", "010", "0x10", " 7 ", "k", "99999999999g"} {
		if got, ok := ParseConfigInt(s); ok {
			t.Errorf("ParseConfigInt(%q) = %d, want it left to git", s, got)
		}
	}
}
