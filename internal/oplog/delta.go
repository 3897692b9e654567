package oplog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// Delta is a journal change recorded as what changed instead of two whole
// copies: the versions before and after share their first Prefix and last
// Suffix bytes, and Old and New are what lies between in each. A journal
// that grows by one entry (a checkpoint appended to checkpoints.json) then
// costs the record the new entry's bytes, however long the journal is.
//
// The change's Old and New still name both versions (the ids of their
// blobs, which are not stored): the current file is checked against one
// of them before the other is rebuilt from it, and the rebuilt bytes are
// checked against the other id before they are written.
type Delta struct {
	Prefix int64  `json:"prefix"`
	Suffix int64  `json:"suffix"`
	Old    []byte `json:"old"`
	New    []byte `json:"new"`
	// Sum, for a change told by an append in place (Unnamed), is the
	// SHA-256 (hex) of the bytes outside the change (the first Prefix,
	// then the last Suffix), the same in both versions: with Old or New
	// it names a version without its id.
	Sum string `json:"sum,omitempty"`
}

// deltaMinSize is the size under which a journal is recorded whole: a
// small file costs the record little, and its blobs are easy to read.
const deltaMinSize = 4096

// deltaOf is the change from b to a as a Delta, or nil when recording the
// two whole versions is as cheap (a small journal, or a change that
// rewrites most of it).
func deltaOf(b, a []byte) *Delta {
	if len(b) < deltaMinSize && len(a) < deltaMinSize {
		return nil
	}
	n := min(len(b), len(a))
	// Whole blocks are compared first (bytes.Equal runs at memory speed),
	// then the bytes of the block that differs.
	const block = 4096
	p := 0
	for p+block <= n && bytes.Equal(b[p:p+block], a[p:p+block]) {
		p += block
	}
	for p < n && b[p] == a[p] {
		p++
	}
	s := 0
	for s+block <= n-p && bytes.Equal(b[len(b)-s-block:len(b)-s], a[len(a)-s-block:len(a)-s]) {
		s += block
	}
	for s < n-p && b[len(b)-1-s] == a[len(a)-1-s] {
		s++
	}
	d := &Delta{Prefix: int64(p), Suffix: int64(s), Old: bytes.Clone(b[p : len(b)-s]), New: bytes.Clone(a[p : len(a)-s])}
	if len(d.Old)+len(d.New) > max(len(b), len(a))/2 {
		return nil
	}
	return d
}

// Unnamed reports whether c, a change recorded as d, names its versions
// by d's bytes alone: an append in place told by the command that made it
// (neither version was read again or hashed). Undoing or redoing it then
// checks that the file ends, from d.Prefix, with the bytes it is to
// replace (a whole element before the append, and what followed).
func (d *Delta) Unnamed(c BlobChange) bool {
	return d != nil && c.Old == "" && c.New == "" && len(d.Sum) == 64 && len(d.Old)+len(d.New) > 0
}

// VersionNames are short names of an Unnamed change's two versions, for
// people: digests of the bytes outside the change and of each side's.
func (d *Delta) VersionNames() (old, new string) {
	name := func(part []byte) string {
		h := sha256.New()
		h.Write([]byte(d.Sum))
		h.Write(part)
		return hex.EncodeToString(h.Sum(nil))[:12]
	}
	return name(d.Old), name(d.New)
}

// holds reports whether cur is the version after d (after set) or the one
// before it.
func (d *Delta) holds(cur []byte, after bool) bool {
	part := d.Old
	if after {
		part = d.New
	}
	return d.Prefix >= 0 && d.Suffix >= 0 && d.Prefix+d.Suffix+int64(len(part)) == int64(len(cur)) &&
		bytes.Equal(cur[d.Prefix:d.Prefix+int64(len(part))], part) && journal.OutsideSum(cur, d.Prefix, d.Suffix) == d.Sum
}

// inverse is the delta that takes the after version back to the before.
func (d *Delta) inverse() *Delta {
	if d == nil {
		return nil
	}
	return &Delta{Prefix: d.Prefix, Suffix: d.Suffix, Old: d.New, New: d.Old, Sum: d.Sum}
}

// apply rebuilds the version after the change from cur, the version
// before it; it fails when cur is not what the delta starts from.
func (d *Delta) apply(cur []byte) ([]byte, error) {
	if d.Prefix < 0 || d.Suffix < 0 || d.Prefix+d.Suffix+int64(len(d.Old)) != int64(len(cur)) {
		return nil, fmt.Errorf("the file is not the version the recorded change starts from (%d bytes, not %d)", len(cur), d.Prefix+d.Suffix+int64(len(d.Old)))
	}
	if !bytes.Equal(cur[d.Prefix:d.Prefix+int64(len(d.Old))], d.Old) {
		return nil, fmt.Errorf("the file is not the version the recorded change starts from")
	}
	out := make([]byte, 0, d.Prefix+int64(len(d.New))+d.Suffix)
	out = append(out, cur[:d.Prefix]...)
	out = append(out, d.New...)
	return append(out, cur[int64(len(cur))-d.Suffix:]...), nil
}

// valid reports whether d can describe a change at all (a record is
// untrusted input).
func (d *Delta) valid() bool {
	return d.Prefix >= 0 && d.Suffix >= 0 && d.Prefix <= 1<<40 && d.Suffix <= 1<<40
}
