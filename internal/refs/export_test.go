package refs

import (
	"context"

	"github.com/nudgethis/git-nudge/internal/git"
)

// Only tests allocate without knowing the journal's ids: the commands
// call AllocateFrom.

// Allocate creates the ref of a new id pointing at object and returns the
// id. The ref is created only if absent (compare-and-swap against the zero
// id); a lost race moves on to the next number. minNext lets a caller that
// knows of ids without refs (a journal) skip past them.
func (k Kind) Allocate(ctx context.Context, r *git.Repo, object string, minNext int) (string, error) {
	n, err := k.Highest(ctx, r)
	if err != nil {
		return "", err
	}
	return k.AllocateFrom(ctx, r, object, max(n+1, minNext))
}
