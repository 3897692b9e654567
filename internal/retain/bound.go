package retain

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// BoundError is a prune asked for without a bound it can use: the
// caller's mistake, its message says what to give instead.
type BoundError struct{ Err error }

func (e *BoundError) Error() string { return e.Err.Error() }
func (e *BoundError) Unwrap() error { return e.Err }

// Bound resolves the age bound of a prune: olderThan when given (as
// ParseAge reads it); otherwise, when keep is negative (no count given),
// the configured retention that retention reads and key names, which must
// be set then. It is 0 when a count alone bounds the prune. Errors of the
// caller's input are *BoundError; others are retention's.
func Bound(olderThan string, keep int, key string, retention func() (time.Duration, error)) (time.Duration, error) {
	switch {
	case olderThan != "":
		d, err := ParseAge(olderThan)
		if err != nil {
			return 0, &BoundError{fmt.Errorf("--older-than: %w", err)}
		}
		return d, nil
	case keep < 0:
		d, err := retention()
		if err != nil {
			return 0, err
		}
		if d == 0 {
			return 0, &BoundError{errors.New("prune needs a bound: give --older-than AGE (such as 30d) or --keep N, or set one with git config " + key + " 30d")}
		}
		return d, nil
	}
	return 0, nil
}

// UsageKind is one kind of thing a tool holds on disk.
type UsageKind struct {
	Kind  string `json:"kind"`
	Count int    `json:"count"`
	Unit  string `json:"unit"`
	Bytes int64  `json:"bytes"`
}

// Usage is what a tool's du reports.
type Usage struct {
	Kinds   []UsageKind `json:"kinds"`
	Largest []Sized     `json:"largest"`
	// Total is the sum of the kinds' bytes.
	Total int64 `json:"total_bytes"`
}

// Add counts one kind in, and its bytes in the total.
func (u *Usage) Add(kind, unit string, count int, bytes int64) {
	u.Kinds = append(u.Kinds, UsageKind{Kind: kind, Count: count, Unit: unit, Bytes: bytes})
	u.Total += bytes
}

// usageLabels name the kinds in du's table.
var usageLabels = map[string]string{
	"task_refs": "task refs", "records": "task records", "logs": "logs", "pool": "pool",
	"worktrees": "task worktrees", "stage": "stage", "sandbox": "sandbox objects", "op_log": "op log",
	"checkpoint_refs": "checkpoint refs", "autodev_branches": "autodev branches", "journals": "journals",
}

// Text is du's table: a line a kind, aligned, then the total; then, under
// heading, the largest items (none, no heading).
func (u *Usage) Text(heading string) string {
	var b strings.Builder
	lw, cw := len("total"), 0
	for _, k := range u.Kinds {
		lw = max(lw, len(usageLabels[k.Kind]))
		cw = max(cw, len(fmt.Sprintf("%d %s", k.Count, k.Unit)))
	}
	for _, k := range u.Kinds {
		fmt.Fprintf(&b, "%-*s  %-*s  %10s\n", lw, usageLabels[k.Kind], cw, fmt.Sprintf("%d %s", k.Count, k.Unit), Bytes(k.Bytes))
	}
	fmt.Fprintf(&b, "%-*s  %-*s  %10s\n", lw, "total", cw, "", Bytes(u.Total))
	if len(u.Largest) == 0 {
		return b.String()
	}
	w := 0
	for _, it := range u.Largest {
		w = max(w, len(it.ID))
	}
	fmt.Fprintf(&b, "%s\n", heading)
	for _, it := range u.Largest {
		fmt.Fprintf(&b, "  %-*s  %10s\n", w, it.ID, Bytes(it.Bytes))
	}
	return b.String()
}
