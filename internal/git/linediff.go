package git

import (
	"context"
	"strconv"
	"strings"
)

// LineHunk is one hunk of a line diff: lines OldStart..OldStart+OldCount-1
// of the old version became NewStart..NewStart+NewCount-1 of the new one
// (a count of 0: nothing there, after line Start).
type LineHunk struct {
	OldStart, OldCount, NewStart, NewCount int
}

// DiffBlobLines lists the hunks between two stored blobs, without
// context (`git diff -U0`), with no textconv, external diff or attributes'
// drivers.
func (r *Repo) DiffBlobLines(ctx context.Context, a, b string) ([]LineHunk, error) {
	out, err := r.git(ctx, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "-U0", a, b)
	if err != nil {
		return nil, err
	}
	var hunks []LineHunk
	for _, line := range strings.Split(string(out), "\n") {
		rest, ok := strings.CutPrefix(line, "@@ -")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 2 || !strings.HasPrefix(f[1], "+") {
			continue
		}
		var h LineHunk
		h.OldStart, h.OldCount = hunkRange(f[0])
		h.NewStart, h.NewCount = hunkRange(strings.TrimPrefix(f[1], "+"))
		hunks = append(hunks, h)
	}
	return hunks, nil
}

// hunkRange reads "start[,count]".
func hunkRange(s string) (start, count int) {
	a, b, ok := strings.Cut(s, ",")
	start, _ = strconv.Atoi(a)
	count = 1
	if ok {
		count, _ = strconv.Atoi(b)
	}
	return start, count
}
