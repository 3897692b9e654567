package autodev

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nudgethis/git-nudge/internal/pathenc"
	"github.com/nudgethis/git-nudge/internal/snapshot"
)

// A checkpoint lands on a branch the user may push, and agent hooks make
// one every turn: untracked secrets and dumps must never ride along. The
// rule is snapshot.CheckpointPolicy: git-nudge's protected paths,
// nudge.protect and its 16 MiB limit for untracked files, with .env.* and
// autodev.protect on top.

// Reasons a file is left out of a checkpoint.
const (
	LeftOutProtected = "protected"
	LeftOutTooLarge  = "too large"
)

// LeftOut is an untracked file a checkpoint, park or restore's parking
// did not commit, and why.
type LeftOut struct {
	Path   string `json:"path"`
	Reason string `json:"reason"` // LeftOutProtected or LeftOutTooLarge
	Size   int64  `json:"size,omitempty"`
}

// MarshalJSON writes the name as bytes: path_b64 beside a
// C-quoted path when it is not UTF-8.
func (l LeftOut) MarshalJSON() ([]byte, error) {
	path, b64 := pathenc.Encode(l.Path)
	return json.Marshal(struct {
		Path   string `json:"path"`
		B64    string `json:"path_b64,omitempty"`
		Reason string `json:"reason"`
		Size   int64  `json:"size,omitempty"`
	}{path, b64, l.Reason, l.Size})
}

// String is how a message lists the file: ".env (protected)",
// "dump.bin (20 MiB)".
func (l LeftOut) String() string {
	p := pathenc.QuoteInList(l.Path)
	if l.Reason == LeftOutTooLarge {
		return fmt.Sprintf("%s (%s)", p, mib(l.Size))
	}
	return p + " (" + l.Reason + ")"
}

func mib(n int64) string {
	if n%(1<<20) == 0 || n >= 100<<20 {
		return fmt.Sprintf("%d MiB", (n+(1<<19))>>20)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// LeftOutLine is the line that lists what was left out ("" for nothing).
func LeftOutLine(l []LeftOut) string {
	if len(l) == 0 {
		return ""
	}
	parts := make([]string, len(l))
	for i, x := range l {
		parts[i] = x.String()
	}
	return "not checkpointed: " + strings.Join(parts, ", ")
}

// leftOutOf is what a checkpoint's capture skipped, as a checkpoint
// reports it: paths without a folder's trailing "/", in the capture's
// order.
func leftOutOf(skipped []snapshot.Skipped) []LeftOut {
	var out []LeftOut
	for _, s := range skipped {
		l := LeftOut{Path: strings.TrimSuffix(s.Path, "/"), Reason: LeftOutProtected}
		if s.Reason == snapshot.ReasonTooLarge {
			l.Reason, l.Size = LeftOutTooLarge, s.Size
		}
		out = append(out, l)
	}
	return out
}

func leftOutPaths(l []LeftOut) []string {
	out := make([]string, len(l))
	for i, x := range l {
		out[i] = x.Path
	}
	return out
}
