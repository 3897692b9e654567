package autodevcmd_test

import (
	"os"
	"testing"

	"github.com/nudgethis/git-nudge/internal/testutil"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }
