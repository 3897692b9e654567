package linemerge

import (
	"bytes"
	"testing"
)

// A merge whose changes touch or overlap, or where a line next to the gap
// could be slid across it, is left to git.
func TestApartLeavesCloseChangesToGit(t *testing.T) {
	for _, c := range []struct{ name, base, ours, theirs string }{
		{"adjacent", "a\nb\nc\n", "A\nb\nc\n", "a\nB\nc\n"},
		{"same line", "a\nb\nc\n", "a\nX\nc\n", "a\nY\nc\n"},
		{"first gap line in ours' change", "x\ny\nz\nw\n", "y\ny\nz\nw\n", "x\ny\nz\nW\n"},
		{"last gap line in theirs' change", "x\ny\nz\nw\n", "X\ny\nz\nw\n", "x\ny\nz\nz\n"},
		{"binary", "a\x00\nb\nc\n", "A\x00\nb\nc\n", "a\x00\nb\nC\n"},
		{"empty base", "", "a\n", "b\n"},
	} {
		if d, ok := Apart([]byte(c.ours), []byte(c.base), []byte(c.theirs)); ok {
			t.Errorf("%s: merged in this process as %q", c.name, d)
		}
	}
	d, ok := Apart([]byte("A\nb\nc\nd\n"), []byte("a\nb\nc\nd\n"), []byte("a\nb\nc\nD\n"))
	if !ok || string(d) != "A\nb\nc\nD\n" {
		t.Errorf("changes two lines apart: got %q, %v", d, ok)
	}
}

// A patch's body counts and marks lines as git does: a last line without
// a newline counts and is followed by git's marker.
func TestPatchLines(t *testing.T) {
	for _, c := range []struct {
		data  string
		count int
		body  string
	}{
		{"a\nb\n", 2, "-a\n-b\n"},
		{"a\nb", 2, "-a\n-b\n\\ No newline at end of file\n"},
		{"\n", 1, "-\n"},
		{"", 0, ""},
	} {
		var w bytes.Buffer
		WritePatchLines(&w, '-', []byte(c.data))
		if n := PatchCount([]byte(c.data)); n != c.count || w.String() != c.body {
			t.Errorf("%q: count %d, body %q; want %d, %q", c.data, n, w.String(), c.count, c.body)
		}
	}
}
