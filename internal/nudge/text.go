package nudge

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nudgethis/git-nudge/internal/guard"
)

// Short is ShortID in a message, where a missing commit is said so.
func Short(id string) string {
	if id == "" {
		return "(no commit)"
	}
	return ShortID(id)
}

func Contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func FirstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

// Distinct is ids without repeats, in the order first given.
func Distinct(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// samePathOnDisk reports whether a and b name the same file once
// symlinks are resolved.
var samePathOnDisk = guard.SamePathOnDisk

// ValidationReason is apply's refusal reason for a task whose validation
// failed, and the advice.
func ValidationReason(t *Task, logPath string) (reason, next string) {
	var failed []string
	for _, c := range t.Validation.Commands {
		switch {
		case c.TimedOut:
			failed = append(failed, fmt.Sprintf("%q (timed out)", c.Command))
		case c.ExitCode == nil:
			failed = append(failed, fmt.Sprintf("%q (did not run)", c.Command))
		case *c.ExitCode != 0:
			failed = append(failed, fmt.Sprintf("%q (exit status %d)", c.Command, *c.ExitCode))
		}
	}
	why := strings.Join(failed, ", ")
	if why == "" {
		why = t.Validation.Reason
	}
	return fmt.Sprintf("%s failed validation: %s", t.ID, why),
		fmt.Sprintf("See %s; git nudge validate %s runs the checks again, git nudge apply --unvalidated %s applies it anyway.", logPath, t.ID, t.ID)
}

// ShownPath is path as the user should type it: relative to dir (the
// caller's current directory, or the top of the work tree when dir is
// ""), or absolute when it is not below the top of the work tree.
func (w *Workspace) ShownPath(path, dir string) string {
	if dir == "" {
		dir = w.Repo.WorkTree
	}
	if rel, err := filepath.Rel(dir, path); err == nil {
		if inTop, err := filepath.Rel(w.Repo.WorkTree, path); err == nil && filepath.IsLocal(inTop) {
			return rel
		}
	}
	return path
}
