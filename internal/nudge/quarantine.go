package nudge

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// QuarantineRefs compares the refs with before (guard.RefsBeforeRun before
// CMD ran), moves aside or puts back what t's run changed
// (guard.QuarantineRefs) unless keep, reports it on warn and returns it.
// The workspace lock is held.
func (w *Workspace) QuarantineRefs(ctx context.Context, t *Task, before map[string]string, keep bool, warn io.Writer) []RefChange {
	if warn == nil {
		warn = io.Discard
	}
	changes := w.Guard().QuarantineRefs(ctx, t.ID, worktreeOf(t), before, keep, warn)
	if len(changes) == 0 {
		return nil
	}
	fmt.Fprintf(warn, "git nudge: %s changed refs outside its own while it ran:\n", t.ID)
	for _, c := range changes {
		fmt.Fprintf(warn, "  %s\n", describeRefChange(c))
	}
	if !keep {
		fmt.Fprintf(warn, "git nudge: the task's versions are kept under %s%s/ (git for-each-ref %s%s/ lists them); git nudge run --keep-refs keeps such refs in place.\n", QuarantinePrefix, t.ID, QuarantinePrefix, t.ID)
	}
	return changes
}

// RefChangeLines are t's RefChanges, one line each, for people.
func RefChangeLines(t *Task) []string {
	var out []string
	for _, c := range t.RefChanges {
		out = append(out, describeRefChange(c))
	}
	return out
}

// describeRefChange is one line for people.
func describeRefChange(c RefChange) string {
	var what string
	switch {
	case c.Old == "":
		what = fmt.Sprintf("%s made at %s", QuotePath(c.Ref), Short(c.New))
	case c.New == "":
		what = fmt.Sprintf("%s deleted (was %s)", QuotePath(c.Ref), Short(c.Old))
	default:
		what = fmt.Sprintf("%s moved from %s to %s", QuotePath(c.Ref), Short(c.Old), Short(c.New))
	}
	what += ": " + c.Action
	if c.KeptAs != "" && !strings.HasPrefix(c.Action, "failed") {
		what += ", the task's value kept as " + QuotePath(c.KeptAs)
	}
	return what
}
