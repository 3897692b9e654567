package git

import (
	"context"
	"strconv"
	"strings"
)

// ConfigGet returns the last value of key; ok is false when it is unset.
func (r *Repo) ConfigGet(ctx context.Context, key string) (val string, ok bool, err error) {
	out, err := r.line(ctx, "config", "--get", key)
	if err != nil {
		if ExitCode(err) == 1 {
			return "", false, nil
		}
		return "", false, err
	}
	return out, true, nil
}

// ConfigGetAll returns every value of a multi-valued key, in order.
func (r *Repo) ConfigGetAll(ctx context.Context, key string) ([]string, error) {
	out, err := r.git(ctx, "config", "-z", "--get-all", key)
	if err != nil {
		if ExitCode(err) == 1 {
			return nil, nil
		}
		return nil, err
	}
	return splitZ(out), nil
}

// ConfigBool returns key read as a boolean (git's spelling rules), or def when unset.
func (r *Repo) ConfigBool(ctx context.Context, key string, def bool) (bool, error) {
	out, err := r.line(ctx, "config", "--type=bool", "--get", key)
	if err != nil {
		if ExitCode(err) == 1 {
			return def, nil
		}
		return def, err
	}
	return out == "true", nil
}

// ConfigInt returns key read as an integer (with k/m/g suffixes), or def when unset.
func (r *Repo) ConfigInt(ctx context.Context, key string, def int64) (int64, error) {
	out, err := r.line(ctx, "config", "--type=int", "--get", key)
	if err != nil {
		if ExitCode(err) == 1 {
			return def, nil
		}
		return def, err
	}
	return strconv.ParseInt(out, 10, 64)
}

// splitZ splits NUL-terminated records.
func splitZ(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}
