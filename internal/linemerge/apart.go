// Package linemerge is the line-level work of a three-way file merge that
// needs no git: which versions are text a line merge takes, the merge of
// two changes that are apart, and the body of a patch that replaces a
// file's lines whole. It imports no package of the project.
package linemerge

import "bytes"

// Text reports whether ours, base and theirs are all text a line merge
// takes as it is: none has a NUL byte (which git takes as binary) and
// none is empty (a change from or to nothing is a creation or a deletion,
// not an edit of lines).
func Text(ours, base, theirs []byte) bool {
	for _, d := range [][]byte{ours, base, theirs} {
		if len(d) == 0 || bytes.IndexByte(d, 0) >= 0 {
			return false
		}
	}
	return true
}

// Apart merges the change base -> theirs into ours in this process when
// the two changes are apart, and then gives exactly what git merge-file
// gives (ok true); otherwise ok is false and git must merge them. Versions
// that are not Text are never merged here.
//
// Each side's change is found as git's line diff starts: the lines both
// ends share with the base are set aside (the common prefix first, then
// the common suffix of what is left), which leaves one changed region of
// the base per side. The changes are apart when one side's region ends
// before the other's begins with at least one unchanged base line between
// them (the gap), and no line the diff could move into the gap borders
// it: the first gap line equals no line of the first region (as the base
// had it or as that side has it), and the last gap line equals no line of
// the second region. git's diff puts every change inside its side's region
// and then only slides a group of changed lines one line at a time, past
// a line equal to the group's first line (down) or last line (up); a
// group of the first region can thus never enter the gap, nor one of the
// second, so git's changes stay apart as well and merge-file merges
// without a conflict. Its result is the base with both sides' changes
// made, which is the first side up to the gap, the gap, and the second
// side from the gap on, whatever lines git's diff chose for each change.
func Apart(ours, base, theirs []byte) (data []byte, ok bool) {
	if !Text(ours, base, theirs) {
		return nil, false
	}
	bl, ol, tl := splitLines(base), splitLines(ours), splitLines(theirs)
	o, t := regionOf(bl, ol), regionOf(bl, tl)
	if d, ok := joinApart(bl, ol, o, tl, t); ok {
		return d, true
	}
	return joinApart(bl, tl, t, ol, o)
}

// region is where a side changed the base: base[from:to] became
// side[from:sideTo].
type region struct{ from, to, sideTo int }

// regionOf sets aside the lines side shares with base at the start, then
// at the end (of what is left).
func regionOf(base, side [][]byte) region {
	n := min(len(base), len(side))
	p := 0
	for p < n && bytes.Equal(base[p], side[p]) {
		p++
	}
	s := 0
	for s < n-p && bytes.Equal(base[len(base)-1-s], side[len(side)-1-s]) {
		s++
	}
	return region{from: p, to: len(base) - s, sideTo: len(side) - s}
}

// joinApart is the merge when x's region comes first and y's second,
// apart (see Apart); ok is false when they are not.
func joinApart(base, x [][]byte, xr region, y [][]byte, yr region) ([]byte, bool) {
	if xr.to >= yr.from {
		return nil, false // no unchanged base line between them
	}
	first, last := base[xr.to], base[yr.from-1]
	for _, l := range [][][]byte{base[xr.from:xr.to], x[xr.from:xr.sideTo]} {
		if hasLine(l, first) {
			return nil, false
		}
	}
	for _, l := range [][][]byte{base[yr.from:yr.to], y[yr.from:yr.sideTo]} {
		if hasLine(l, last) {
			return nil, false
		}
	}
	var out bytes.Buffer
	for _, part := range [][][]byte{x[:xr.sideTo], base[xr.to:yr.from], y[yr.from:]} {
		for _, l := range part {
			out.Write(l)
		}
	}
	return out.Bytes(), true
}

func hasLine(lines [][]byte, l []byte) bool {
	for _, k := range lines {
		if bytes.Equal(k, l) {
			return true
		}
	}
	return false
}

// splitLines cuts data into lines, each with its newline (the last one
// may have none).
func splitLines(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			i = len(data) - 1
		}
		out = append(out, data[:i+1])
		data = data[i+1:]
	}
	return out
}
