package tests

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/autodevcmd"
	"github.com/nudgethis/git-nudge/internal/cli/nudgecmd"
)

// The checked-in man pages must be what the command-line model generates.
func TestManPagesUpToDate(t *testing.T) {
	for _, p := range []cli.Program{nudgecmd.Program(), autodevcmd.Program()} {
		want, err := p.ManPage()
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("..", "man", p.Name+".1"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("man/%s.1 is stale: run go generate ./... and commit the result", p.Name)
		}
	}
}
