package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// install.sh into a fresh PREFIX with a fresh HOME: both commands work
// through git from PATH, man pages and completions land where the man and
// shell tools look, and a second run replaces the first cleanly.
func TestInstallFreshHome(t *testing.T) {
	if testing.Short() {
		t.Skip("builds both binaries with go build; skipped with -short")
	}
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(t.TempDir(), "prefix with space")
	home := t.TempDir()
	env := installEnv(t, home)
	pathEnv := "PATH=" + filepath.Join(prefix, "bin") + string(os.PathListSeparator) + os.Getenv("PATH")

	run := func(dir string, extra []string, name string, args ...string) string {
		t.Helper()
		c := exec.Command(name, args...)
		c.Dir = dir
		c.Env = append(append(append([]string{}, env...), pathEnv), extra...)
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	wantVersion := strings.TrimSpace(run(root, nil, "git", "describe", "--tags", "--always", "--dirty"))
	elsewhere := t.TempDir() // not inside the source checkout

	for round := 1; round <= 2; round++ {
		out := run(elsewhere, []string{"PREFIX=" + prefix}, "sh", filepath.Join(root, "install.sh"))
		if !strings.Contains(out, "Installed git-nudge and git-autodev") {
			t.Fatalf("round %d: install.sh said:\n%s", round, out)
		}
		// zsh looks for completions only on its fpath: the line to add.
		if want := `fpath=("` + filepath.Join(prefix, "share", "zsh", "site-functions") + `" $fpath)`; !strings.Contains(out, want) {
			t.Errorf("round %d: install.sh does not print %s:\n%s", round, want, out)
		}
		for _, tool := range []string{"git-nudge", "git-autodev"} {
			sub := strings.TrimPrefix(tool, "git-")
			if got := strings.TrimSpace(run(elsewhere, nil, "git", sub, "--version")); got != tool+" version "+wantVersion {
				t.Errorf("round %d: git %s --version = %q, want %q", round, sub, got, tool+" version "+wantVersion)
			}
			page := filepath.Join(prefix, "share", "man", "man1", tool+".1")
			got, err := os.ReadFile(page)
			want, _ := os.ReadFile(filepath.Join(root, "man", tool+".1"))
			if err != nil || len(want) == 0 || string(got) != string(want) {
				t.Errorf("round %d: %s is missing or differs from man/%s.1 (%v)", round, page, tool, err)
			} else if st, _ := os.Stat(page); st.Mode().Perm() != 0o644 {
				t.Errorf("round %d: %s mode %v, want 0644", round, page, st.Mode().Perm())
			}
			for file, marker := range map[string]string{
				filepath.Join("share", "bash-completion", "completions", tool):       "complete -C " + tool + " " + tool,
				filepath.Join("share", "zsh", "site-functions", "_"+tool):            "#compdef " + tool,
				filepath.Join("share", "fish", "vendor_completions.d", tool+".fish"): "complete -f -c " + tool,
				filepath.Join("share", "fish", "vendor_conf.d", tool+".fish"):        "complete -f -c git -n '__fish_seen_subcommand_from " + sub + "'",
			} {
				b, err := os.ReadFile(filepath.Join(prefix, file))
				if err != nil || !strings.Contains(string(b), marker) {
					t.Errorf("round %d: completion %s missing or lacks %q (%v)", round, file, marker, err)
				}
			}
		}
		bins, _ := os.ReadDir(filepath.Join(prefix, "bin"))
		if len(bins) != 2 {
			var names []string
			for _, b := range bins {
				names = append(names, b.Name())
			}
			t.Errorf("round %d: bin holds %v, want exactly git-nudge and git-autodev", round, names)
		}
	}

	// fish completes "git nudge ..." in a fresh shell: git's completion
	// does not load git-nudge's file, the copy fish reads at start does.
	if _, err := exec.LookPath("fish"); err == nil {
		dataDirs := "XDG_DATA_DIRS=" + filepath.Join(prefix, "share")
		got := run(elsewhere, []string{dataDirs, "XDG_DATA_HOME=" + filepath.Join(home, "data")}, "fish", "-c", `complete -C "git nudge diff --"; complete -C "git autodev restore --"`)
		for _, want := range []string{"--name-status", "--rebuild"} {
			if !strings.Contains(got, want) {
				t.Errorf("fish completes neither git nudge nor git autodev flags (%s missing):\n%s", want, got)
			}
		}
	} else {
		t.Log("fish is not installed: its completion of git nudge not checked")
	}

	// man finds the pages through MANPATH, so `git nudge --help` (which git
	// turns into `man git-nudge`) shows them.
	manPath := "MANPATH=" + filepath.Join(prefix, "share", "man")
	if _, err := exec.LookPath("man"); err != nil {
		t.Log("man is not installed: MANPATH lookup not checked")
		return
	}
	got := strings.TrimSpace(run(elsewhere, []string{manPath}, "man", "-w", "git-nudge"))
	if want := filepath.Join(prefix, "share", "man", "man1", "git-nudge.1"); got != want {
		t.Errorf("man -w git-nudge = %q, want %q", got, want)
	}
	if _, err := exec.LookPath("nroff"); err == nil {
		help := run(elsewhere, []string{manPath, "MANPAGER=cat", "PAGER=cat", "MANWIDTH=80"}, "git", "nudge", "--help")
		if !strings.Contains(help, "EXIT STATUS") || !strings.Contains(help, "git-nudge") {
			t.Errorf("git nudge --help did not show the man page:\n%s", help)
		}
	}
}

// installEnv is a fresh-home environment that still reuses this machine's
// Go caches and settings (so the build needs no network), with no git
// configuration from the developer.
func installEnv(t *testing.T, home string) []string {
	t.Helper()
	keys := []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOPROXY", "GOSUMDB",
		"GONOSUMDB", "GOPRIVATE", "GONOPROXY", "GOINSECURE", "GOTOOLCHAIN", "GOROOT"}
	out, err := exec.Command("go", append([]string{"env"}, keys...)...).Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	vals := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(vals) != len(keys) {
		t.Fatalf("go env printed %d lines for %d keys", len(vals), len(keys))
	}
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C", "TERM=dumb"}
	for i, k := range keys {
		if vals[i] != "" {
			env = append(env, k+"="+vals[i])
		}
	}
	return env
}
