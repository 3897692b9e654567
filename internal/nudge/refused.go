package nudge

import "strings"

// RefusedError is a workflow declining to act: what was asked, every reason
// at once, and what to do next. Nothing was changed when it is returned. The
// command layer turns it into its own refusal (exit status 1).
type RefusedError struct {
	What    string   // "cannot apply t3"
	Reasons []string // each a full sentence
	Next    string   // what to do next (may hold several lines)
}

func (e *RefusedError) Error() string {
	var b strings.Builder
	b.WriteString(e.What)
	if len(e.Reasons) == 1 {
		b.WriteString(": " + e.Reasons[0])
	} else {
		b.WriteString(":")
		for _, r := range e.Reasons {
			b.WriteString("\n  - " + r)
		}
	}
	if e.Next != "" {
		b.WriteString("\n" + e.Next)
	}
	return b.String()
}

// reasonList collects the reasons to refuse an operation, and the advice for
// them, each piece of advice once.
type reasonList struct{ reasons, nexts []string }

func (r *reasonList) add(reason, next string) {
	if reason != "" {
		r.reasons = append(r.reasons, reason)
	}
	if next != "" && !contains(r.nexts, next) {
		r.nexts = append(r.nexts, next)
	}
}

// next is the advice, one piece a line.
func (r *reasonList) next() string { return strings.Join(r.nexts, "\n") }
