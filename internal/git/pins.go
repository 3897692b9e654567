package git

import (
	"context"
	"strings"
)

// RefsAt lists the refs under prefix (for example
// "refs/autodev/checkpoints/") that point at object.
func (r *Repo) RefsAt(ctx context.Context, prefix, object string) ([]string, error) {
	out, err := r.git(ctx, "for-each-ref", "--points-at="+object, "--format=%(refname)", "--", prefix)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if l != "" {
			names = append(names, l)
		}
	}
	return names, nil
}
