package nudge

import "strings"

// Refused is a workflow declining to act, with every reason and what to do
// next; nothing was changed. The command line shows it as a refusal.
type Refused struct {
	What    string   // "cannot drop t3"
	Reasons []string // full sentences
	Next    string   // what to do next
}

func (r *Refused) Error() string {
	var b strings.Builder
	b.WriteString(r.What)
	if len(r.Reasons) == 1 {
		b.WriteString(": " + r.Reasons[0])
	} else {
		b.WriteString(":")
		for _, reason := range r.Reasons {
			b.WriteString("\n  - " + reason)
		}
	}
	if r.Next != "" {
		b.WriteString("\n" + r.Next)
	}
	return b.String()
}
