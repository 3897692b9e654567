package git

import "context"

// GCAuto runs git gc --auto --quiet: git looks whether the repository
// holds more loose objects or packs than gc.auto and gc.autoPackLimit
// allow (a look at one object folder and the pack folder), does nothing
// when it does not, and otherwise packs and prunes, in the background
// unless gc.autoDetach is false, as after git's own commands.
func (r *Repo) GCAuto(ctx context.Context) error {
	_, err := r.git(ctx, "gc", "--auto", "--quiet")
	return err
}
