package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ConfigInt answers what git config --type=int answers, whether it reads
// the value itself (a plain decimal, a unit suffix) or asks git.
func TestConfigIntAgreesWithGit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, text string }{
		{"unset", "[user]\n\tname = x\n"},
		{"plain", "[gc]\n\tauto = 6700\n"},
		{"zero", "[gc]\n\tauto = 0\n"},
		{"negative", "[gc]\n\tauto = -1\n"},
		{"unit", "[gc]\n\tauto = 2k\n"},
		{"unit upper", "[gc]\n\tauto = 3M\n"},
		{"octal", "[gc]\n\tauto = 010\n"},
		{"hex", "[gc]\n\tauto = 0x10\n"},
		{"comment", "[gc]\n\tauto = 12 ; twelve\n"},
		{"quoted", "[gc]\n\tauto = \"13\"\n"},
		{"last wins", "[gc]\n\tauto = 1\n[gc]\n\tAUTO = 5\n"},
		{"subsection ignored", "[gc \"x\"]\n\tauto = 9\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newApplyRepo(t)
			cfg := filepath.Join(r.CommonDir, "config")
			old, err := os.ReadFile(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(cfg, append(old, c.text...), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := r.ConfigInt(context.Background(), "gc.auto", 4242)
			cmd := exec.Command("git", "config", "--type=int", "--get", "gc.auto")
			cmd.Dir = r.WorkTree
			out, gerr := cmd.Output()
			want := int64(4242)
			if gerr == nil {
				want, _ = strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
			}
			if err != nil || got != want {
				t.Errorf("ConfigInt = %d, %v; git config says %q (%v)", got, err, out, gerr)
			}
		})
	}
}
