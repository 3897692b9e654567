package snapshot

import (
	"context"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/git"
)

func TestProtected(t *testing.T) {
	t.Parallel()
	o := Options{Protect: []string{"secrets/", "*.pem", "/config/prod.yml", "!keep.pem", "# a comment"}}
	p := o.Protection()
	for path, want := range map[string]bool{
		".env":                  true,
		"app/.env":              true,
		".env.example":          false,
		".git":                  true,
		"sub/.git/":             true,
		".nudgethis/tasks/t1":   true,
		"sub/.nudgethis":        false,
		"secrets/key":           true,
		"a/secrets/key":         true,
		"secrets":               false, // a file named secrets: the pattern is for folders
		"certs/server.pem":      true,
		"config/prod.yml":       true,
		"sub/config/prod.yml":   false,
		"src/main.go":           false,
		"keep.pem":              false,
		"deep/a/b/c/.env/inner": true,
		// Built-in names in any case, with what NTFS drops or resolves.
		".ENV":                 true,
		"app/.Env. ":           true,
		".env::$DATA":          true,
		"ENV~1":                true,
		".GIT/config":          true,
		"GIT~1/config":         true,
		"sub/git~2/hooks/x":    true,
		".NudgeThis/tasks/t1":  true,
		"NUDGET~1/tasks/t1":    true,
		".autodev/memory.md":   true,
		".AUTODEV/x":           true,
		"sub/.autodev/x":       false,
		".worktreeinclude":     true,
		".WorktreeInclude..":   true,
		"WORKTR~1":             true,
		"sub/.worktreeinclude": false,
		"gitx~1":               false,
		// nudge.protect patterns in any case too.
		"SECRETS/key":      true,
		"certs/server.PEM": true,
		"Config/Prod.yml":  true,
	} {
		if got := p.Protected(path); got != want {
			t.Errorf("Protected(%q) = %v, want %v", path, got, want)
		}
		if got := o.Protected(path); got != want {
			t.Errorf("Options.Protected(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestDependencyDir(t *testing.T) {
	t.Parallel()
	o := Options{SkipDirs: []string{"vendor", "third_party/big/"}}
	for path, want := range map[string]string{
		"node_modules/":           "node_modules/",
		"node_modules/a/b.js":     "node_modules/",
		"web/node_modules/x.js":   "web/node_modules/",
		"node_modules":            "", // a file of that name
		"py/__pycache__/m.pyc":    "py/__pycache__/",
		".venv/bin/python":        ".venv/",
		"venv/":                   "venv/",
		".tox/py3/x":              ".tox/",
		"b/bower_components/c.js": "b/bower_components/",
		"vendor/lib.go":           "vendor/",
		"a/vendor/lib.go":         "a/vendor/",
		"third_party/big/x":       "third_party/big/",
		"x/third_party/big/y":     "",
		"src/app.js":              "",
	} {
		got, ok := o.dependencyDir(path)
		if got != want || ok != (want != "") {
			t.Errorf("dependencyDir(%q) = %q %v, want %q", path, got, ok, want)
		}
	}
}

// nudge.maxUntracked is read as git reads an integer: a plain number with
// a unit here, another spelling by git, a word refused with advice.
func TestLoadOptionsMaxUntracked(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]int64{"25": 25, "2k": 2048, "0x10": 16, "010": 8, "lots": -1} {
		f := newFixture(t, "sha1")
		f.git("config", "nudge.maxUntracked", v)
		repo, err := git.Discover(context.Background(), f.dir)
		if err != nil {
			t.Fatal(err)
		}
		o, err := LoadOptions(context.Background(), repo)
		switch {
		case want < 0 && (err == nil || !strings.Contains(err.Error(), "git config nudge.maxUntracked 10000")):
			t.Errorf("nudge.maxUntracked %q: err = %v, want advice", v, err)
		case want >= 0 && (err != nil || int64(o.MaxUntracked) != want):
			t.Errorf("nudge.maxUntracked %q: %d, %v; want %d", v, o.MaxUntracked, err, want)
		}
	}
}
