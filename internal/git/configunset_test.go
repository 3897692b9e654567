package git

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ConfigBool and ConfigInt answer an unset key's default without a git
// process when no config source names the key, and still ask git (and
// get the value) wherever the key may be set: the repository's config in
// any case, the global file, an included file, git -c, GIT_CONFIG_COUNT.
func TestConfigDefaultsWithoutGit(t *testing.T) {
	ctx := context.Background()
	r := newApplyRepo(t)
	trace := filepath.Join(t.TempDir(), "trace.json")
	t.Setenv("GIT_TRACE2_EVENT", trace)
	on, err := r.ConfigBool(ctx, "autodev.checkpoints", true)
	keep, err2 := r.ConfigInt(ctx, "op.keep", 1000)
	os.Unsetenv("GIT_TRACE2_EVENT")
	if err != nil || err2 != nil || !on || keep != 1000 {
		t.Fatalf("unset keys: %v %v, %d %v; want the defaults", on, err, keep, err2)
	}
	if traced, _ := os.ReadFile(trace); strings.Contains(string(traced), `"config"`) {
		t.Errorf("git config ran for keys no config file names:\n%s", traced)
	}

	off := func(t *testing.T, r *Repo) {
		t.Helper()
		on, err := r.ConfigBool(ctx, "autodev.checkpoints", true)
		if err != nil || on {
			t.Errorf("ConfigBool = %v, %v; want false", on, err)
		}
	}
	t.Run("repository, any spelling", func(t *testing.T) {
		r := newApplyRepo(t)
		f, err := os.OpenFile(filepath.Join(r.CommonDir, "config"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("[AutoDev]\n\tCheckPoints = no\n[op]\n\tKEEP = 2k\n")
		f.Close()
		off(t, r)
		if n, err := r.ConfigInt(ctx, "op.keep", 1000); err != nil || n != 2048 {
			t.Errorf("ConfigInt = %d, %v; want 2048", n, err)
		}
	})
	t.Run("global", func(t *testing.T) {
		g := filepath.Join(t.TempDir(), "global")
		os.WriteFile(g, []byte("[autodev]\n\tcheckpoints = off\n"), 0o644)
		t.Setenv("GIT_CONFIG_GLOBAL", g)
		off(t, newApplyRepo(t))
	})
	t.Run("included", func(t *testing.T) {
		r := newApplyRepo(t)
		inc := filepath.Join(t.TempDir(), "work.cfg")
		os.WriteFile(inc, []byte("[autodev]\n\tcheckpoints = false\n"), 0o644)
		gitT(t, r.WorkTree, "config", "include.path", inc)
		off(t, r)
	})
	t.Run("git -c", func(t *testing.T) {
		t.Setenv("GIT_CONFIG_PARAMETERS", "'autodev.checkpoints'='false'")
		off(t, newApplyRepo(t))
	})
	t.Run("GIT_CONFIG_COUNT", func(t *testing.T) {
		t.Setenv("GIT_CONFIG_COUNT", "1")
		t.Setenv("GIT_CONFIG_KEY_0", "autodev.checkpoints")
		t.Setenv("GIT_CONFIG_VALUE_0", "false")
		off(t, newApplyRepo(t))
	})
}
