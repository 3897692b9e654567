package git

import (
	"context"
	"strings"
)

// ConfigGetRegexp returns every key matching pattern (git config
// --get-regexp) with its value, in the order git reads them.
func (r *Repo) ConfigGetRegexp(ctx context.Context, pattern string) ([]ConfigEntry, error) {
	out, err := r.git(ctx, "config", "-z", "--get-regexp", pattern)
	if err != nil {
		if ExitCode(err) == 1 {
			return nil, nil
		}
		return nil, err
	}
	var list []ConfigEntry
	for _, rec := range splitZ(out) {
		k, v, _ := strings.Cut(rec, "\n")
		list = append(list, ConfigEntry{Key: k, Value: v})
	}
	return list, nil
}
