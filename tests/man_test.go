package tests

import (
	"os"
	"path/filepath"
	"strings"
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

// Every subcommand has its own entry: op log, show, undo and redo (and
// the other command groups' subcommands) were missing from the pages.
func TestManPagesListSubcommands(t *testing.T) {
	for _, p := range []cli.Program{nudgecmd.Program(), autodevcmd.Program()} {
		page, err := p.ManPage()
		if err != nil {
			t.Fatal(err)
		}
		short := strings.TrimPrefix(p.Name, "git-")
		for _, sub := range []string{"op log", "op show <id>", "op undo [<id>]", "op redo"} {
			entry := `\fBgit ` + short + " " + sub
			if strings.Count(page, entry) < 2 { // SYNOPSIS and COMMANDS
				t.Errorf("%s.1 has no entry for git %s %s", p.Name, short, sub)
			}
		}
	}
}
