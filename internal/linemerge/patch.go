package linemerge

import "bytes"

// PatchCount is the number of lines of data as a patch's hunk header
// counts them (a last line without a newline counts).
func PatchCount(data []byte) int {
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// WritePatchLines writes each line of data to a patch's hunk, after sign
// ('-' for a removed line, '+' for an added one), marking a last line
// without a newline as git does.
func WritePatchLines(w *bytes.Buffer, sign byte, data []byte) {
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line = data[:i+1]
		}
		data = data[len(line):]
		w.WriteByte(sign)
		w.Write(line)
		if line[len(line)-1] != '\n' {
			w.WriteString("\n\\ No newline at end of file\n")
		}
	}
}
