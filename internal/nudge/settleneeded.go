package nudge

// NeedsSettle reports whether Settle could change t's record: an apply or
// undo left half done, or a task being prepared, run or validated whose
// process is gone. A reader that keeps records between requests (the
// dashboard) settles only when one of them does.
func (w *Workspace) NeedsSettle(t *Task) bool {
	switch t.State {
	case StateApplying, StateUndoing:
		return true
	case StatePreparing, StateRunning, StateValidating:
		return !w.Busy(t.ID)
	}
	return false
}
