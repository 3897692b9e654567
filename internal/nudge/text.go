package nudge

import (
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
