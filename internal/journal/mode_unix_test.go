//go:build unix

package journal_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// A new journal is 0644 whatever the umask. Not parallel: the umask is the
// whole process's, and non-parallel tests run before parallel ones resume.
func TestNewJournalModeIgnoresUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	path := filepath.Join(t.TempDir(), "checkpoints.json")
	if err := journal.Write(path, []int{1}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode under umask 077 = %v, want 0644", st.Mode().Perm())
	}
}
