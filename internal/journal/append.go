package journal

import (
	"bytes"
	"fmt"
)

// AppendArray is what Write would write for a JSON array whose first
// elements are already in prev (a file Write wrote, or any valid JSON
// array: its bytes are kept as they are) followed by more (a slice): the
// new elements are encoded exactly as Write encodes array elements and
// put before the closing bracket. A journal that only grows (checkpoints
// appended) is then rewritten without encoding every record again. ok is
// false when prev does not end like an array; the caller writes the whole
// value instead.
func AppendArray(prev []byte, more any) (data []byte, ok bool, err error) {
	head := bytes.TrimRight(prev, " \t\r\n")
	if !bytes.HasSuffix(head, []byte("]")) {
		return nil, false, nil
	}
	head = bytes.TrimRight(head[:len(head)-1], " \t\r\n")
	empty := bytes.HasSuffix(head, []byte("["))
	if !empty && !bytes.HasSuffix(head, []byte("}")) {
		return nil, false, nil
	}
	enc, err := encode(more, "  ")
	if err != nil {
		return nil, false, fmt.Errorf("encoding: %w", err)
	}
	// enc is "[\n" elements "\n]\n" (or "[]\n" for none).
	elems, found := bytes.CutPrefix(enc, []byte("[\n"))
	elems, found2 := bytes.CutSuffix(elems, []byte("\n]\n"))
	if !found || !found2 {
		return nil, false, nil
	}
	out := make([]byte, 0, len(head)+len(elems)+8)
	out = append(out, head...)
	if empty {
		out = append(out, '\n')
	} else {
		out = append(out, ",\n"...)
	}
	out = append(out, elems...)
	return append(out, "\n]\n"...), true, nil
}

// Encode is v as Write writes it.
func Encode(v any) ([]byte, error) { return encode(v, "  ") }
