package git

import "context"

// GCAuto lets git collect the repository's objects as it does after its
// own commands: git gc --auto --quiet, which packs and prunes (in the
// background unless gc.autoDetach is false) once the repository holds
// more loose objects than gc.auto or more packs than gc.autoPackLimit,
// and does nothing with gc.auto 0. The same look git's --auto takes (one
// object folder, the pack folder) is taken here first, so that no git
// process starts when there is nothing to do.
func (r *Repo) GCAuto(ctx context.Context) error {
	if !r.gcDue(ctx) {
		return nil
	}
	_, err := r.git(ctx, "gc", "--auto", "--quiet")
	return err
}

// gcDue is git's own test for gc --auto (builtin/gc.c need_to_gc, without
// the big-pack refinements, which only make git do less): too many loose
// objects (gitstore's LooseObjectsOver) or too many packs without .keep
// (PacksOver).
func (r *Repo) gcDue(ctx context.Context) bool {
	limit, err := r.ConfigInt(ctx, "gc.auto", 6700)
	if err != nil {
		return true // git reads it and says what is wrong
	}
	if limit <= 0 {
		return false
	}
	if r.LooseObjectsOver(limit) {
		return true
	}
	packLimit, err := r.ConfigInt(ctx, "gc.autoPackLimit", 50)
	if err != nil {
		return true
	}
	return packLimit > 0 && r.PacksOver(packLimit)
}
