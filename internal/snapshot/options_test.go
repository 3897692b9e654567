package snapshot

import "testing"

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

func TestParseConfigInt(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]int64{"10": 10, "2k": 2048, "1m": 1 << 20, " 7 ": 7} {
		if got, err := parseConfigInt(s); err != nil || got != want {
			t.Errorf("parseConfigInt(%q) = %d, %v", s, got, err)
		}
	}
	if _, err := parseConfigInt("lots"); err == nil {
		t.Error("parseConfigInt(lots) succeeded")
	}
}
