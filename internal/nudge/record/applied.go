package record

import "fmt"

// Which paths of a task's patch are applied, and the state for people that
// follows from it.

// AppliedCount is how many paths of t's patch are applied (written by
// an apply and not undone since), and how many the patch has. A task
// that is not applied (nor being applied or undone) has none applied.
func (t *Task) AppliedCount() (applied, total int) {
	total = len(t.Files)
	switch t.State {
	case StateApplied, StateApplying, StateUndoing, StateSaved, StateRecoveryRequired:
		if t.Undo != nil {
			applied = len(t.Undo.After)
		}
	}
	return min(applied, total), total
}

// AppliedPaths are the paths of an applied task's undo record.
func (t *Task) AppliedPaths() map[string]bool {
	m := map[string]bool{}
	if t.State == StateApplied && t.Undo != nil {
		for _, a := range t.Undo.After {
			m[a.Path] = true
		}
	}
	return m
}

// Label is the task's state for people: StateLabel, with "applied 3/7"
// while only some of the patch's paths are applied and "applied
// (conflicts)" while conflict markers an apply --conflicts wrote may
// remain.
func (t *Task) Label() string {
	if t.State == StateApplied {
		label := StateApplied
		if n, total := t.AppliedCount(); n < total {
			label = fmt.Sprintf("applied %d/%d", n, total)
		}
		if len(t.Conflicts) > 0 {
			label += " (conflicts)"
		}
		return label
	}
	return StateLabel(t.State)
}
