package cli_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestGitStoreIsALeaf: the in-process store of git's files imports
// nothing of the project above it. internal/gitstore (objects, ref and
// config files, trees) imports only the readers of single formats below
// it (internal/commitgraph); internal/gitindex (the index files) imports
// only internal/gitstore. internal/commitgraph (git's commit-graph files)
// and internal/linemerge (a three-way line merge done without git)
// import no package of the project.
// Neither imports internal/git, the porcelain that embeds them: what they
// leave to a git process they ask through gitstore.Git, which
// internal/git implements. internal/gitexec, which starts every git
// child, is a leaf too: the porcelain above it, not the store, calls it.
func TestGitStoreIsALeaf(t *testing.T) {
	t.Parallel()
	const mod = "github.com/nudgethis/git-nudge/"
	allowed := map[string]map[string]bool{
		"gitstore":    {mod + "internal/commitgraph": true},
		"gitindex":    {mod + "internal/gitstore": true},
		"gitexec":     {},
		"commitgraph": {},
		"linemerge":   {},
	}
	minFiles := map[string]int{"gitstore": 5, "gitindex": 5, "gitexec": 2, "commitgraph": 1, "linemerge": 2}
	for pkg, ok := range allowed {
		files, err := filepath.Glob(filepath.Join("..", pkg, "*.go"))
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
				if p, _ := strconv.Unquote(im.Path.Value); strings.HasPrefix(p, mod) && !ok[p] {
					t.Errorf("%s imports %s: the store stays below the porcelain; ask git through gitstore.Git instead", f, p)
				}
			}
		}
		if checked < minFiles[pkg] {
			t.Fatalf("only %d files of internal/%s checked: the glob missed the package", checked, pkg)
		}
	}
}
