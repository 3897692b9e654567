package refs

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/nudgethis/git-nudge/internal/git"
)

// AllocateFrom creates the ref of a new id pointing at object and returns
// the id, for a caller that already knows the highest id (it listed the
// refs, perhaps while other work ran, or read a journal): it tries next,
// then the numbers after it, each ref created only if absent
// (compare-and-swap against the zero id), so a stale listing only costs
// retries.
func (k Kind) AllocateFrom(ctx context.Context, r *git.Repo, object string, next int) (string, error) {
	return k.withHighWater(ctx, r, next, func(next int) (string, error) { return k.createFrom(ctx, r, object, next) })
}

func (k Kind) createFrom(ctx context.Context, r *git.Repo, object string, next int) (string, error) {
	if next < 1 {
		next = 1
	}
	for tries := 0; tries < 1000; tries++ {
		id := k.Letter + strconv.Itoa(next)
		err := r.SetRefFast(ctx, k.Ref(id), object, r.ZeroID())
		if err == nil {
			return id, nil
		}
		if !errors.Is(err, git.ErrRefConflict) {
			return "", err
		}
		next++
	}
	return "", fmt.Errorf("could not allocate a new %s id after 1000 attempts", k.Letter)
}
