package cli_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestGitStoreIsALeaf: the in-process store of git's files
// (internal/gitstore) imports no package of the project. In particular it
// never imports internal/git, the porcelain that embeds it: what the store
// leaves to a git process it asks through its Git interface, which
// internal/git implements.
func TestGitStoreIsALeaf(t *testing.T) {
	t.Parallel()
	const mod = "github.com/nudgethis/git-nudge/"
	files, err := filepath.Glob(filepath.Join("..", "gitstore", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		checked++
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); strings.HasPrefix(p, mod) {
				t.Errorf("%s imports %s: the store is a leaf; ask git through gitstore.Git instead", f, p)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d files of internal/gitstore checked: the glob missed the package", checked)
	}
}
