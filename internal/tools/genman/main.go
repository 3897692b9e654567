// Command genman writes the man pages of git-nudge and git-autodev from their
// kong models into the folder given as its argument (go generate ./... runs
// it for man/).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/autodevcmd"
	"github.com/nudgethis/git-nudge/internal/cli/nudgecmd"
)

func main() {
	dir := "."
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	for _, p := range []cli.Program{nudgecmd.Program(), autodevcmd.Program()} {
		page, err := p.ManPage()
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, p.Name+".1"), []byte(page), 0o644)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "genman: %s: %v\n", p.Name, err)
			os.Exit(1)
		}
	}
}
