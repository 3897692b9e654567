package gitstore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nudgethis/git-nudge/internal/testutil"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// newTestStore is a Store on a new repository (testutil.Repo).
func newTestStore(t *testing.T) *Store {
	t.Helper()
	s, err := openTestStore(testutil.Repo(t))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// openTestStore is the Store of the repository whose work tree is dir,
// its fallbacks served by git processes: storegit.Open, which
// storegit_test.go hands in (storegit imports this package, so only the
// external test package may import it).
func openTestStore(dir string) (*Store, error) { return OpenTestStore(dir) }

// OpenTestStore is set by storegit_test.go to storegit.Open.
var OpenTestStore func(dir string) (*Store, error)

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return testutil.Git(t, dir, args...)
}

func writeT(t *testing.T, root, p, content string, mode os.FileMode) {
	t.Helper()
	full := filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}
