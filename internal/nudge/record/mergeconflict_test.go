package record

import "testing"

// A conflict reads as its path, the lines of each range (an insertion as
// "after line N") and why.
func TestMergeConflictString(t *testing.T) {
	if s := (MergeConflict{Path: "a b.txt", Reason: "r", Lines: []LineRange{{2, 1}, {4, 4}, {6, 9}}}).String(); s != `"a b.txt": after line 1, line 4, lines 6-9: r` && s != "a b.txt: after line 1, line 4, lines 6-9: r" {
		t.Fatalf("String() = %q", s)
	}
}
