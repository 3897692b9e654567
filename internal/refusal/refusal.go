// Package refusal holds the suite's one refusal type: a workflow or a
// command declining to act. It sits below the workflows so that both they
// (nudge.RefusedError) and the command layer (cli.Refusal) name the same
// type.
package refusal

import "strings"

// Refusal is declining to act: what was asked, every reason at once, and
// what to do next. Nothing was changed when it is returned. The command
// layer prints it and exits with status 1.
type Refusal struct {
	What    string   // "cannot apply t3"
	Reasons []string // each a full sentence
	Next    string   // what to do next (may hold several lines)
}

func (r *Refusal) Error() string {
	var b strings.Builder
	b.WriteString(r.What)
	switch len(r.Reasons) {
	case 0:
	case 1:
		b.WriteString(": " + r.Reasons[0])
	default:
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
