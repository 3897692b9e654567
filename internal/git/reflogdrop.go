package git

import "context"

// DropReflogTop removes the newest entry of ref's log and moves ref to the
// entry below it (or deletes it when none is left), as git stash drop does
// for refs/stash.
func (r *Repo) DropReflogTop(ctx context.Context, ref string) error {
	r.refsAboutToChange(ref)
	_, err := r.git(ctx, "reflog", "delete", "--updateref", "--rewrite", ref+"@{0}")
	return err
}
