package autodev

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nudgethis/git-nudge/internal/pathenc"
	"github.com/nudgethis/git-nudge/internal/snapshot"
)

// A checkpoint lands on a branch the user may push, and agent hooks make
// one every turn: untracked secrets and dumps must never ride along. The rule is git-nudge's (snapshot.Options: its protected paths,
// nudge.protect, and its 16 MiB limit for untracked files), with .env.*
// and autodev.protect on top.

// Reasons a file is left out of a checkpoint.
const (
	LeftOutProtected = "protected"
	LeftOutTooLarge  = "too large"
)

// autodevProtected are protected-path patterns checkpoints add to
// git-nudge's: .env's variants (.env.local, .env.production). Matched
// without regard to case, as all protected paths are.
var autodevProtected = []string{".env.*"}

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

// captureOptions are the rules: git-nudge's, plus .env.* and
// autodev.protect.
func (ws *Workspace) captureOptions(ctx context.Context) (snapshot.Options, error) {
	o, err := snapshot.LoadOptions(ctx, ws.Repo)
	if err != nil {
		return o, err
	}
	o.Protect = append(o.Protect, autodevProtected...)
	if ws.Repo.ConfigMayMention("protect") {
		vals, err := ws.Repo.ConfigValues(ctx, `^autodev\.protect$`)
		if err != nil {
			return o, err
		}
		for _, v := range vals["autodev.protect"] {
			if v = strings.TrimSpace(v); v != "" {
				o.Protect = append(o.Protect, v)
			}
		}
	}
	return o, nil
}

// splitUntracked sorts the untracked files a capture found (as git
// ls-files lists them) into those it takes and those it must leave out:
// protected paths and files over the size limit. Embedded repositories
// ("dir/") are taken, as git add -A takes them.
func (ws *Workspace) splitUntracked(ctx context.Context, untracked []string) (keep []string, left []LeftOut, err error) {
	if len(untracked) == 0 {
		return nil, nil, nil
	}
	o, err := ws.captureOptions(ctx)
	if err != nil {
		return nil, nil, err
	}
	prot := o.Protection()
	keep = make([]string, 0, len(untracked))
	for _, p := range untracked {
		if isExcluded(p) {
			continue
		}
		if prot.Protected(p) {
			left = append(left, LeftOut{Path: strings.TrimSuffix(p, "/"), Reason: LeftOutProtected})
			continue
		}
		if !strings.HasSuffix(p, "/") {
			st, err := os.Lstat(filepath.Join(ws.Repo.WorkTree, filepath.FromSlash(p)))
			if errors.Is(err, fs.ErrNotExist) {
				continue // gone since git listed it
			}
			if err == nil && st.Mode().IsRegular() && st.Size() > o.MaxFileSize {
				left = append(left, LeftOut{Path: p, Reason: LeftOutTooLarge, Size: st.Size()})
				continue
			}
		}
		keep = append(keep, p)
	}
	return keep, left, nil
}

func leftOutPaths(l []LeftOut) []string {
	out := make([]string, len(l))
	for i, x := range l {
		out[i] = x.Path
	}
	return out
}
