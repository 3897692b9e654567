package oplog

import (
	"bytes"
	"fmt"
	"testing"
)

// A change anywhere in a long journal is recorded as a delta that rebuilds
// each version from the other exactly, and costs what changed.
func TestDeltaRebuildsBothVersions(t *testing.T) {
	var long bytes.Buffer
	long.WriteString("[\n")
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&long, "  {\"id\": \"c%d\", \"label\": \"step %d\"},\n", i, i)
	}
	base := long.Bytes()
	cases := map[string][]byte{
		"appended": append(bytes.Clone(base), "  {\"id\": \"new\"}\n]\n"...),
		"edited":   bytes.Replace(bytes.Clone(base), []byte("step 123"), []byte("step one-two-three"), 1),
		"cut":      bytes.Clone(base[:len(base)-40]),
		"same-end": append([]byte("x"), base...),
	}
	for name, after := range cases {
		d := deltaOf(base, after)
		if d == nil {
			t.Fatalf("%s: no delta for a small change of a %d-byte journal", name, len(base))
		}
		if len(d.Old)+len(d.New) > 200 {
			t.Errorf("%s: the delta holds %d bytes, more than what changed", name, len(d.Old)+len(d.New))
		}
		got, err := d.apply(base)
		if err != nil || !bytes.Equal(got, after) {
			t.Fatalf("%s: the delta does not rebuild the after version (%v)", name, err)
		}
		back, err := d.inverse().apply(after)
		if err != nil || !bytes.Equal(back, base) {
			t.Fatalf("%s: the inverse does not rebuild the before version (%v)", name, err)
		}
		if _, err := d.apply(after); err == nil && !bytes.Equal(after, base) {
			t.Errorf("%s: the delta applied to the wrong version", name)
		}
	}
	if deltaOf([]byte("[]"), []byte("[1]")) != nil {
		t.Error("a small journal is recorded whole")
	}
	if deltaOf(base, bytes.Repeat([]byte("z"), len(base))) != nil {
		t.Error("a journal rewritten whole is recorded whole")
	}
}
