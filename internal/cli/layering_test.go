package cli_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCommandsTalkToWorkflowsOnly: the command packages reach git and
// snapshots through the workflows (internal/nudge, internal/autodev),
// never internal/git or internal/snapshot directly (issue 13, item 7).
func TestCommandsTalkToWorkflowsOnly(t *testing.T) {
	t.Parallel()
	forbidden := map[string]bool{
		"github.com/nudgethis/git-nudge/internal/git":      true,
		"github.com/nudgethis/git-nudge/internal/snapshot": true,
	}
	// The op log's hooks into the commands open a bare git.Repo; they
	// are being reworked with the op log itself.
	exempt := map[string]bool{"oprecord.go": true}
	files, err := filepath.Glob(filepath.Join("nudgecmd", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join("autodevcmd", "*.go"))
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatal("no command files found")
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || exempt[filepath.Base(f)] {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if forbidden[p] {
				t.Errorf("%s imports %s: go through internal/nudge or internal/autodev", f, p)
			}
		}
	}
}
