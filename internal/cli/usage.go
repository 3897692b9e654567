package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/retain"
)

// KeepHint is what prune says about op undo: how long it can bring back
// what was dropped.
func KeepHint(tool string) string {
	return "git " + tool + " op undo brings it back while the operation log keeps this operation " +
		"(op.keep, the last 1000 operations by default) and until git gc deletes what nothing else reaches."
}

// JoinIDs lists ids for a message, shortened past n.
func JoinIDs(ids []string, n int) string {
	if len(ids) <= n {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:n], ", ") + fmt.Sprintf(" and %d more", len(ids)-n)
}

// PruneBound is retain.Bound for a prune command: a bound the caller gave
// wrongly, or not at all, exits with ExitUsage.
func PruneBound(olderThan string, keep int, key string, retention func() (time.Duration, error)) (time.Duration, error) {
	d, err := retain.Bound(olderThan, keep, key, retention)
	var be *retain.BoundError
	if errors.As(err, &be) {
		return 0, UsageError(be.Err)
	}
	return d, err
}
