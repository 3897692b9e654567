package git

// This file holds reading git's configuration.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/nudgethis/git-nudge/internal/gitexec"
	"github.com/nudgethis/git-nudge/internal/gitstore"
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
	return gitexec.SplitZ(out), nil
}

// ConfigBool returns key read as a boolean (git's spelling rules), or def when unset.
func (r *Repo) ConfigBool(ctx context.Context, key string, def bool) (bool, error) {
	if r.configUnset(key) {
		return def, nil
	}
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
	if r.configUnset(key) {
		return def, nil
	}
	if section, name, ok := strings.Cut(key, "."); ok && !strings.Contains(name, ".") {
		// A plain decimal value (a unit suffix allowed) in plain config
		// files is read here, with no git process.
		if v, found, here := r.ConfigLastRaw(section, name); here {
			if !found {
				return def, nil
			}
			if n, ok := gitstore.ParseConfigInt(v); ok {
				return n, nil
			}
		}
	}
	out, err := r.line(ctx, "config", "--type=int", "--get", key)
	if err != nil {
		if ExitCode(err) == 1 {
			return def, nil
		}
		return def, err
	}
	return strconv.ParseInt(out, 10, 64)
}

// configUnset reports, without a git process, that key cannot be set: a
// config file that sets it spells its name (the part after the last dot;
// git reads names without regard to case, and a name cannot be split
// across lines), so when no config source may mention that name
// (ConfigMayMention), git config would answer "unset". It answers false
// whenever it cannot tell, and the caller asks git.
func (r *Repo) configUnset(key string) bool {
	name := strings.ToLower(key[strings.LastIndex(key, ".")+1:])
	return name != "" && !r.ConfigMayMention(name)
}

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
	return configEntries(out), nil
}

// configEntries reads git config -z output: "key\nvalue\0" records.
func configEntries(out []byte) []ConfigEntry {
	var list []ConfigEntry
	for _, rec := range gitexec.SplitZ(out) {
		k, v, _ := strings.Cut(rec, "\n")
		list = append(list, ConfigEntry{Key: k, Value: v})
	}
	return list
}

// ConfigFileEntries lists the entries of one config file exactly as
// written in it (its include directives are entries, not followed).
// file is an absolute path, or "blob:<id>" for a stored copy.
func (r *Repo) ConfigFileEntries(ctx context.Context, file string) ([]ConfigEntry, error) {
	src := []string{"--file", file}
	if id, ok := strings.CutPrefix(file, "blob:"); ok {
		if !r.ValidID(id) {
			return nil, fmt.Errorf("%q is not an object id", id)
		}
		src = []string{"--blob", id}
	}
	args := append([]string{"config", "--no-includes", "-z", "--list"}, src...)
	out, err := r.git(ctx, args...)
	if err != nil {
		return nil, err
	}
	return configEntries(out), nil
}

// UserIdentityKnown reports whether git knows the user's author and
// committer identity from config or environment without guessing it from
// the host name (user.useConfigOnly). Commits made for the user must check
// it first. The two identities are asked for side by side; the author's
// answer is taken first.
func (r *Repo) UserIdentityKnown(ctx context.Context) (bool, error) {
	vars := []string{"GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"}
	errs := make([]error, len(vars))
	var wg sync.WaitGroup
	for i, v := range vars {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = r.git(ctx, "-c", "user.useConfigOnly=true", "var", v)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			if ExitCode(err) == 128 {
				return false, nil
			}
			return false, err
		}
	}
	return true, nil
}

// ConfigValues returns every value of the keys matching the regular
// expression re, keyed by git's canonical (lower-case) key name, in order.
func (r *Repo) ConfigValues(ctx context.Context, re string) (map[string][]string, error) {
	entries, err := r.ConfigGetRegexp(ctx, re)
	if err != nil {
		return nil, err
	}
	vals := map[string][]string{}
	for _, e := range entries {
		vals[e.Key] = append(vals[e.Key], e.Value)
	}
	return vals, nil
}
