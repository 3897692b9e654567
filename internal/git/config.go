package git

// This file holds reading git's configuration.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
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
		if v, found, here := r.configLastRaw(section, name); here {
			if !found {
				return def, nil
			}
			if n, ok := plainConfigInt(v); ok {
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

// plainConfigInt reads v as git config --type=int does when it is a
// plain decimal number (no leading zero, which git reads as octal) with
// an optional k, m or g unit; ok is false for anything else, which the
// caller leaves to git.
func plainConfigInt(v string) (int64, bool) {
	mult := int64(1)
	if v != "" {
		switch v[len(v)-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		}
		if mult != 1 {
			v = v[:len(v)-1]
		}
	}
	digits := strings.TrimPrefix(strings.TrimPrefix(v, "-"), "+")
	if digits == "" || strings.Trim(digits, "0123456789") != "" || len(digits) > 1 && digits[0] == '0' {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n > math.MaxInt64/mult || n < math.MinInt64/mult {
		return 0, false
	}
	return n * mult, true
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
	for _, rec := range splitZ(out) {
		k, v, _ := strings.Cut(rec, "\n")
		list = append(list, ConfigEntry{Key: k, Value: v})
	}
	return list
}

// ConfigEntry is one key = value line of a config file, with the key as
// git spells it in --list (section and name lower case).
type ConfigEntry struct {
	Key, Value string
}

// ConfigFileEntries lists the entries of one config file exactly as
// written in it (its include directives are entries, not followed).
// file is an absolute path, or "blob:<id>" for a stored copy.
func (r *Repo) ConfigFileEntries(ctx context.Context, file string) ([]ConfigEntry, error) {
	src := []string{"--file", file}
	if id, ok := strings.CutPrefix(file, "blob:"); ok {
		if !r.validID(id) {
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
// it first.
func (r *Repo) UserIdentityKnown(ctx context.Context) (bool, error) {
	for _, v := range []string{"GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"} {
		if _, err := r.git(ctx, "-c", "user.useConfigOnly=true", "var", v); err != nil {
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

// ConfigMayMention says whether git config could hold a setting whose
// name or value holds one of words (lower case): false only when no config
// file git reads mentions any of them or includes another file, and no
// config comes from the environment (git -c, GIT_CONFIG_COUNT,
// GIT_CONFIG), and git's system-wide file is known (systemConfigFile). A
// cheap, conservative test that spares a git config call in the common
// case.
func (r *Repo) ConfigMayMention(words ...string) bool {
	files, ok := r.configFiles()
	if !ok {
		return true
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		low := bytes.ToLower(data)
		if bytes.Contains(low, []byte("include")) {
			return true
		}
		for _, w := range words {
			if bytes.Contains(low, []byte(w)) {
				return true
			}
		}
	}
	return false
}

// configFiles lists the config files git reads, in git's order (system,
// XDG, global, the repository's, this worktree's); ok is false when
// config may also come from the environment (git -c, GIT_CONFIG_COUNT,
// GIT_CONFIG) or git's system-wide file is not known (systemConfigFile).
func (r *Repo) configFiles() (files []string, ok bool) {
	for _, k := range []string{"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG"} {
		if os.Getenv(k) != "" {
			return nil, false
		}
	}
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		if s := os.Getenv("GIT_CONFIG_SYSTEM"); s != "" {
			files = append(files, s)
		} else if s, known := systemConfigFile(); known {
			files = append(files, s)
		} else {
			return nil, false // git's system file is somewhere we cannot tell
		}
	}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		files = append(files, g)
	} else if home, err := os.UserHomeDir(); err == nil {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" {
			xdg = filepath.Join(home, ".config")
		}
		files = append(files, filepath.Join(xdg, "git", "config"), filepath.Join(home, ".gitconfig"))
	}
	return append(files, filepath.Join(r.CommonDir, "config"), filepath.Join(r.GitDir, "config.worktree")), true
}

// plainConfigText reports whether a config file's text is one go-git's
// decoder reads as git does: no include (which git follows), no value
// continued on the next line (which the decoder keeps a newline in).
func plainConfigText(data []byte) bool {
	return !bytes.Contains(bytes.ToLower(data), []byte("include")) &&
		!bytes.Contains(data, []byte("\\\n")) && !bytes.Contains(data, []byte("\\\r\n"))
}

// configLastRaw is the last value for section.key (no subsection) in
// git's config files as the file spells it, worked out in this process
// (see configLast, which gives it git's bool-or-str reading): found is
// false when no file sets it, ok false when it cannot be worked out here.
func (r *Repo) configLastRaw(section, key string) (val string, found, ok bool) {
	files, ok := r.configFiles()
	if !ok {
		return "", false, false
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", false, false
		}
		if strings.HasSuffix(f, "config.worktree") || !plainConfigText(data) {
			return "", false, false
		}
		var cfg gitconfig.Config
		if err := gitconfig.NewDecoder(bytes.NewReader(data)).Decode(&cfg); err != nil {
			return "", false, false
		}
		for _, sec := range cfg.Sections {
			if !strings.EqualFold(sec.Name, section) {
				continue
			}
			for _, o := range sec.Options {
				if strings.EqualFold(o.Key, key) {
					val, found = o.Value, true
				}
			}
		}
	}
	return val, found, true
}

// configLast is the value git config --type=bool-or-str --get would give
// for section.key (no subsection) from git's config files, worked out in
// this process: found is false when no file sets it; ok is false when it
// cannot be worked out here (config from the environment, an include, a
// worktree config file, a file that does not parse, a value that is
// neither text nor a plain boolean), and the caller asks git.
func (r *Repo) configLast(section, key string) (val string, found, ok bool) {
	val, found, ok = r.configLastRaw(section, key)
	if !ok {
		return "", false, false
	}
	if !found {
		return "", false, true
	}
	switch strings.ToLower(val) {
	case "true", "yes", "on":
		return "true", true, true
	case "false", "no", "off":
		return "false", true, true
	case "":
		// "key" alone means true and "key =" false; the decoder gives
		// both as "".
		return "", false, false
	}
	if n, err := strconv.Atoi(val); err == nil {
		return strconv.FormatBool(n != 0), true, true
	}
	if val[0] >= '0' && val[0] <= '9' || val[0] == '-' || val[0] == '+' {
		return "", false, false // a number with a unit suffix, perhaps
	}
	return val, true, true
}

// systemConfigFile is the system-wide config file the git on PATH reads
// when GIT_CONFIG_SYSTEM is not set: /etc/gitconfig for a git installed
// under /usr (distribution packages). A git built with another prefix
// (Homebrew, /usr/local, Xcode) reads <prefix>/etc/gitconfig, which is
// not known without asking it, so known is false there and callers assume
// the file may say anything.
func systemConfigFile() (file string, known bool) {
	systemConfigOnce.Do(func() {
		for _, d := range filepath.SplitList(os.Getenv("PATH")) {
			if d == "" || !filepath.IsAbs(d) {
				continue
			}
			p, err := filepath.EvalSymlinks(filepath.Join(d, "git"))
			if err != nil {
				continue
			}
			if st, err := os.Stat(p); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
				continue
			}
			switch filepath.Dir(p) {
			case "/usr/bin", "/bin", "/usr/lib/git-core", "/usr/libexec/git-core":
				systemConfig, systemConfigKnown = "/etc/gitconfig", true
			}
			return
		}
	})
	return systemConfig, systemConfigKnown
}

var (
	systemConfigOnce  sync.Once
	systemConfig      string
	systemConfigKnown bool
)
