package opcmd

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"testing"
)

// The command layer talks to workflows only: the op command
// and the recorders of both binaries reach git through internal/oplog.
func TestNoGitImport(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	more, _ := filepath.Glob("../*/oprecord.go")
	files = append(files, more...)
	if len(more) != 2 {
		t.Fatalf("expected nudgecmd's and autodevcmd's oprecord.go, found %v", more)
	}
	for _, f := range files {
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "github.com/nudgethis/git-nudge/internal/git" {
				t.Errorf("%s imports internal/git", f)
			}
		}
	}
}
