package git

import "context"

// Dirty reports whether the work tree has anything a checkpoint would
// record: tracked changes (staged or not), untracked files that are not
// ignored, a submodule checked out at another commit (not changes inside
// one, which a checkpoint never takes), outside the excluded top-level
// paths. It reads only (no index refresh is written).
func (r *Repo) Dirty(ctx context.Context, exclude ...string) (bool, error) {
	args := []string{"status", "--porcelain", "-z", "--untracked-files=normal", "--ignored=no",
		"--no-renames", "--ignore-submodules=dirty", "--", "."}
	for _, e := range exclude {
		args = append(args, ":(exclude,top,literal)"+e)
	}
	out, err := r.git(ctx, args...)
	if err != nil {
		return false, err
	}
	return len(out) > 0, nil
}
