package gitstore

// This file holds git's config files read in this process: whether any may mention a
// setting, and the value of a plain one.

import (
	"bytes"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
)

// ConfigEntry is one key = value line of a config file, with the key as
// git spells it in --list (section and name lower case).
type ConfigEntry struct {
	Key, Value string
}

// ConfigMayMention says whether git config could hold a setting whose
// name or value holds one of words (lower case): false only when no config
// file git reads mentions any of them or includes another file, and no
// config comes from the environment (git -c, GIT_CONFIG_COUNT,
// GIT_CONFIG), and git's system-wide file is known (systemConfigFile). A
// cheap, conservative test that spares a git config call in the common
// case.
func (r *Store) ConfigMayMention(words ...string) bool {
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
func (r *Store) configFiles() (files []string, ok bool) {
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

// PlainConfigText reports whether a config file's text is one go-git's
// decoder reads as git does: no include (which git follows), no value
// continued on the next line (which the decoder keeps a newline in).
func PlainConfigText(data []byte) bool {
	return !bytes.Contains(bytes.ToLower(data), []byte("include")) &&
		!bytes.Contains(data, []byte("\\\n")) && !bytes.Contains(data, []byte("\\\r\n"))
}

// ConfigLast is the value git config --type=bool-or-str --get would give
// for section.key (no subsection) from git's config files, worked out in
// this process: found is false when no file sets it; ok is false when it
// cannot be worked out here (config from the environment, an include, a
// worktree config file, a file that does not parse, a value that is
// neither text nor a plain boolean), and the caller asks git.
func (r *Store) ConfigLast(section, key string) (val string, found, ok bool) {
	val, found, ok = r.ConfigLastRaw(section, key)
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

// ConfigLastRaw is the last value for section.key (no subsection) in
// git's config files as the file spells it, worked out in this process
// (ConfigLast gives it git's bool-or-str reading): found is false when no
// file sets it, ok false when it cannot be worked out here.
func (r *Store) ConfigLastRaw(section, key string) (val string, found, ok bool) {
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
		if strings.HasSuffix(f, "config.worktree") || !PlainConfigText(data) {
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

// ParseConfigInt reads v as git config --type=int does when it is a
// plain decimal number (no leading zero, which git reads as octal) with
// an optional k, m or g unit; ok is false for anything else (octal, hex,
// spaces, a number out of range), which the caller leaves to git.
func ParseConfigInt(v string) (int64, bool) {
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
