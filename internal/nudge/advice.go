package nudge

import "fmt"

// PendingAdvice says what becomes of a pending task.
func PendingAdvice(id string) string {
	return fmt.Sprintf("%s is pending: git nudge work runs its command and records the result (git nudge drop %s takes it off the queue)", id, id)
}

// ResultAdvice says how a task without a result gets one. Without a
// worktree, capture alone would only say there is nothing to capture.
func ResultAdvice(id string, worktree bool) string {
	if worktree {
		return fmt.Sprintf("Run a command in its worktree with git nudge run --task %s -- CMD, or record the worktree as it is with git nudge capture %s.", id, id)
	}
	return fmt.Sprintf("It has no worktree yet: git nudge run --task %s -- CMD makes one, runs CMD in it and records the result; or git nudge start %s makes one to work in, then git nudge capture %s records it; git nudge capture %s --from REV takes a commit's tree instead.", id, id, id, id)
}
