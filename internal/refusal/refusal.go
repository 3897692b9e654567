// Package refusal holds the suite's one refusal type: a workflow or a
// command declining to act. It sits below the workflows so that both they
// (nudge.RefusedError) and the command layer (cli.Refusal) name the same
// type.
package refusal

import (
	"context"
	"errors"
	"strings"
)

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

// Document is the error document a command given --json prints on stdout
// when it is refused or fails, and the dashboard's answer to a refused
// request: the message, every reason, what to do next, the exit status.
type Document struct {
	Error   string   `json:"error"`
	Reasons []string `json:"reasons"`
	Next    string   `json:"next,omitempty"`
	Exit    int      `json:"exit"`
}

// DocumentOf is err's error document, for a command that ended with exit
// status code: a Refusal's reasons as they are, anything else's message.
func DocumentOf(err error, code int) Document {
	doc := Document{Reasons: []string{}, Exit: code}
	var r *Refusal
	if errors.As(err, &r) {
		doc.Error = r.What
		doc.Reasons = append(doc.Reasons, r.Reasons...)
		doc.Next = r.Next
		return doc
	}
	if errors.Is(err, context.Canceled) {
		doc.Error = "interrupted"
		return doc
	}
	doc.Error = err.Error()
	return doc
}
