package git

import "context"

// IgnoredAt lists the ignored files (and symlinks) at or under the given
// paths of the work tree: git walks only the folders the paths lead to,
// not the whole tree. paths are literal and at most maxPathArgs of them
// are taken (IgnoredAtLimit); the caller checks more another way.
func (r *Repo) IgnoredAt(ctx context.Context, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	if len(paths) > maxPathArgs {
		paths = paths[:maxPathArgs]
	}
	args := append([]string{"ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--full-name", "--"}, paths...)
	out, err := r.run(ctx, cmd{args: args, env: []string{"GIT_LITERAL_PATHSPECS=1"}})
	if err != nil {
		return nil, err
	}
	return splitZ(out), nil
}

// IgnoredAtLimit is how many paths IgnoredAt takes.
const IgnoredAtLimit = maxPathArgs
