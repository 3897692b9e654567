package cli

import (
	"fmt"
	"strings"

	"github.com/nudgethis/git-nudge/internal/retain"
)

// UsageRow is one line of a du table: a kind, how many, and bytes.
type UsageRow struct {
	Label string
	Count int
	Unit  string
	Bytes int64
}

// PrintUsage writes a du table, aligned, then the total.
func (e *Env) PrintUsage(rows []UsageRow, total int64) {
	lw, cw := len("total"), 0
	for _, r := range rows {
		lw = max(lw, len(r.Label))
		cw = max(cw, len(fmt.Sprintf("%d %s", r.Count, r.Unit)))
	}
	for _, r := range rows {
		e.Printf("%-*s  %-*s  %10s\n", lw, r.Label, cw, fmt.Sprintf("%d %s", r.Count, r.Unit), retain.Bytes(r.Bytes))
	}
	e.Printf("%-*s  %-*s  %10s\n", lw, "total", cw, "", retain.Bytes(total))
}

// PrintLargest writes the largest items under a heading.
func (e *Env) PrintLargest(heading string, items []retain.Sized) {
	if len(items) == 0 {
		return
	}
	w := 0
	for _, it := range items {
		w = max(w, len(it.ID))
	}
	e.Printf("%s\n", heading)
	for _, it := range items {
		e.Printf("  %-*s  %10s\n", w, it.ID, retain.Bytes(it.Bytes))
	}
}

// KeepHint is what prune says about op undo: how long it can bring back
// what was dropped.
func KeepHint(tool string) string {
	return "git " + tool + " op undo brings it back while the operation log keeps this operation " +
		"(op.keep, the last 1000 operations by default) and until git gc deletes what nothing else reaches."
}

// JoinIDs lists ids for a message, shortened past n.
func JoinIDs(ids []string, n int) string {
	if len(ids) <= n {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:n], ", ") + fmt.Sprintf(" and %d more", len(ids)-n)
}
