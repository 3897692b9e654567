package nudge

import (
	"strings"

	refusalpkg "github.com/nudgethis/git-nudge/internal/refusal"
	"github.com/nudgethis/git-nudge/internal/snapshot"
)

// RefusedError is a workflow declining to act: what was asked, every reason
// at once, and what to do next. Nothing was changed when it is returned. It
// is the command layer's cli.Refusal too: one type (internal/refusal).
type RefusedError = refusalpkg.Refusal

// TooManyUntrackedError is a snapshot refused because it would take more
// untracked files than the limit: the command layer shows it as a refusal.
type TooManyUntrackedError = snapshot.TooManyUntrackedError

// ReasonList collects the reasons to refuse an operation, and the advice for
// them, each piece of advice once.
type ReasonList struct{ Reasons, Nexts []string }

func (r *ReasonList) Add(reason, next string) {
	if reason != "" {
		r.Reasons = append(r.Reasons, reason)
	}
	if next != "" && !Contains(r.Nexts, next) {
		r.Nexts = append(r.Nexts, next)
	}
}

// Next is the advice, one piece a line.
func (r *ReasonList) Next() string { return strings.Join(r.Nexts, "\n") }
