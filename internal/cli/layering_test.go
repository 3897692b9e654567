package cli_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCommandsTalkToWorkflowsOnly: the command packages reach git and
// snapshots through the workflows (internal/nudge, internal/autodev),
// never internal/git or internal/snapshot directly.
func TestCommandsTalkToWorkflowsOnly(t *testing.T) {
	t.Parallel()
	forbidden := map[string]bool{
		"github.com/nudgethis/git-nudge/internal/git":      true,
		"github.com/nudgethis/git-nudge/internal/snapshot": true,
	}
	for _, dir := range []string{"nudgecmd", "autodevcmd", "opcmd"} {
		for p, f := range nonTestImports(t, dir) {
			if forbidden[p] {
				t.Errorf("%s imports %s: go through internal/nudge or internal/autodev", f, p)
			}
		}
	}
}

// TestOneOwnerPerOutsideDoor keeps the doors to the outside in one place
// each: only internal/gitexec/gitexec.go and internal/proc/proc.go start
// processes (internal/testutil and internal/testutil/storegit are test
// support), and only internal/worktree touches the work tree through
// go-billy.
func TestOneOwnerPerOutsideDoor(t *testing.T) {
	t.Parallel()
	allowed := map[string]map[string]bool{
		"os/exec": {
			"internal/gitexec/gitexec.go":            true,
			"internal/proc/proc.go":                  true,
			"internal/testutil/testutil.go":          true,
			"internal/testutil/storegit/storegit.go": true,
		},
	}
	billy := "github.com/go-git/go-billy/v5"
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == ".git" || name == "testdata" || name == "man" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		af, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, im := range af.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if files, ok := allowed[p]; ok && !files[rel] && !strings.HasPrefix(rel, "bench/") {
				t.Errorf("%s imports %s: only %v may", rel, p, files)
			}
			if strings.HasPrefix(p, billy) && !strings.HasPrefix(rel, "internal/worktree/") {
				t.Errorf("%s imports %s: work-tree files belong to internal/worktree", rel, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCommentsNameOnlyTheProjectsDocs keeps Go comments speaking for
// themselves: no comment points to a document outside the repository (a
// contract's section numbers, a rule's or an issue's number). A comment
// says what holds, or names a page of the project's own docs (README.md,
// docs/SECURITY.md, docs/RELIABILITY.md, docs/PERFORMANCE.md).
func TestCommentsNameOnlyTheProjectsDocs(t *testing.T) {
	t.Parallel()
	outside := regexp.MustCompile(`\bSPEC\b|\b[Rr]ules? [0-9]+\.[0-9]+|\b[Ii]ssues? #?[0-9]+`)
	root := filepath.Join("..", "..")
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == ".git" || name == "testdata" || name == "man" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		fset := token.NewFileSet()
		af, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		checked++
		for _, cg := range af.Comments {
			text := strings.Join(strings.Fields(cg.Text()), " ")
			if m := outside.FindString(text); m != "" {
				t.Errorf("%s: a comment points outside the repository (%q): say what holds, or name the project's own docs", fset.Position(cg.Pos()), m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d Go files checked: the walk missed the tree", checked)
	}
}

// TestTransactionsGoDown: a command's transaction (internal/txn) is a leaf
// that the layers changing refs and journals (internal/git,
// internal/journal) tell what they change, without knowing the operation
// log: txn imports nothing of the project. And there is no process-wide
// watcher list again. The command packages of the two tools stand apart.
func TestTransactionsGoDown(t *testing.T) {
	t.Parallel()
	const mod = "github.com/nudgethis/git-nudge/"
	root := filepath.Join("..", "..")
	const txnWhy = "transactions go down, never up to the operation log"
	// Neither tool's command package imports the other's: what both serve
	// (the dashboard command, git autodev's JSON documents) lives in a
	// package below both, which imports neither.
	const apart = "what two command packages share goes in a package below both"
	cmd := func(names ...string) func(string) bool {
		return func(p string) bool {
			for _, n := range names {
				if p == mod+"internal/cli/"+n {
					return true
				}
			}
			return false
		}
	}
	rules := []struct {
		dir    string
		forbid func(string) bool
		why    string
	}{
		{"internal/txn", func(p string) bool { return strings.HasPrefix(p, mod) }, txnWhy},
		{"internal/cli/nudgecmd", cmd("autodevcmd"), apart},
		{"internal/cli/autodevcmd", cmd("nudgecmd"), apart},
		{"internal/cli/dashboardcmd", cmd("nudgecmd", "autodevcmd"), apart},
		{"internal/cli/autodevjson", cmd("nudgecmd", "autodevcmd", "dashboardcmd"), apart},
	}
	for _, r := range rules {
		for p, f := range nonTestImports(t, filepath.Join(root, filepath.FromSlash(r.dir))) {
			if r.forbid(p) {
				t.Errorf("%s imports %s: %s", f, p, r.why)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "watch")); err == nil {
		t.Errorf("internal/watch is back: a command's changes go through its transaction, not a process-wide list")
	}
}

// TestOplogNamesNoStatePlace: the operation log names the suite's ref
// folders and journals through internal/refs, their one owner, and spells
// none of them itself.
func TestOplogNamesNoStatePlace(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "oplog", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in internal/oplog: %v", err)
	}
	owned := []string{"refs/nudgethis", "refs/autodev", ".nudgethis", ".autodev"}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, _ := strconv.Unquote(lit.Value)
			for _, o := range owned {
				if strings.HasPrefix(s, o) {
					t.Errorf("%s: %q is internal/refs' to name", fset.Position(lit.Pos()), s)
				}
			}
			return true
		})
	}
}

// TestWebServerBelowCommands: the dashboard's server reaches the
// workflows and the operation layer (internal/operation), never the
// command layer (internal/cli and below), directly or through another
// package: the page adds no second implementation, and no command's
// flags or output shape leak into the server.
func TestWebServerBelowCommands(t *testing.T) {
	t.Parallel()
	const module = "github.com/nudgethis/git-nudge/"
	root := filepath.Join("..", "..")
	seen := map[string]string{} // package dir -> the package that imports it
	var walk func(dir, from string)
	walk = func(dir, from string) {
		if _, ok := seen[dir]; ok {
			return
		}
		seen[dir] = from
		if dir == "internal/cli" || strings.HasPrefix(dir, "internal/cli/") {
			chain := dir
			for p := from; p != ""; p = seen[p] {
				chain = p + " -> " + chain
			}
			t.Errorf("the dashboard's server reaches the command layer: %s", chain)
			return
		}
		for p := range nonTestImports(t, filepath.Join(root, dir)) {
			if rest, ok := strings.CutPrefix(p, module); ok {
				walk(rest, dir)
			}
		}
	}
	walk("internal/dashboard", "")
	if _, ok := seen["internal/operation"]; !ok {
		t.Error("internal/dashboard no longer imports internal/operation: update this test to what the server records and undoes through")
	}
}

// TestNudgeWorkflowsAboveCore: git-nudge's workflow packages
// (internal/nudge/<name>) stand on the workspace core (internal/nudge),
// which imports none of them; a workflow imports another only where the
// table below declares it, and none reaches the command layer. A new
// workflow package is declared here with what it may import. The packages
// under internal/nudge that the core stands on (the task record, the
// bounded run log) are declared as such: the core and the workflows may
// import them, and they import nothing of the core or above it.
func TestNudgeWorkflowsAboveCore(t *testing.T) {
	t.Parallel()
	const core = "github.com/nudgethis/git-nudge/internal/nudge"
	// workflow -> the other workflows it may import
	declared := map[string][]string{
		"accept":     nil,
		"apply":      {"merge", "patchfiles", "take"},
		"merge":      {"patchfiles"},
		"patchfiles": nil,
		"retire":     {"review"},
		"review":     nil,
		"runner":     {"take", "review"},
		"save":       {"merge", "patchfiles"},
		"take":       nil,
	}
	// packages under internal/nudge below the core
	belowCore := []string{"record", "runlog"}
	// concepts the core and its workflows call on, below them
	below := []string{"internal/guard", "internal/pool", "internal/retain"}
	for _, b := range belowCore {
		below = append(below, "internal/nudge/"+b)
	}
	root := filepath.Join("..", "..", "internal", "nudge")
	for p, f := range nonTestImports(t, root) {
		if rest, ok := strings.CutPrefix(p, core+"/"); ok && !slices.Contains(belowCore, rest) {
			t.Errorf("%s imports %s: the workspace core imports no workflow", f, p)
		}
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "testdata" || slices.Contains(belowCore, e.Name()) {
			continue
		}
		allowed, ok := declared[e.Name()]
		if !ok {
			t.Errorf("internal/nudge/%s is not declared in TestNudgeWorkflowsAboveCore: say what it may import", e.Name())
			continue
		}
		found++
		for p, f := range nonTestImports(t, filepath.Join(root, e.Name())) {
			if strings.HasPrefix(p, "github.com/nudgethis/git-nudge/internal/cli") {
				t.Errorf("%s imports %s: a workflow never reaches the command layer", f, p)
			}
			rest, ok := strings.CutPrefix(p, core+"/")
			if !ok {
				continue
			}
			if !slices.Contains(allowed, rest) && !slices.Contains(belowCore, rest) {
				t.Errorf("%s imports %s: workflows import each other only where declared", f, p)
			}
		}
	}
	if found != len(declared) {
		t.Errorf("%d workflow packages found, %d declared: remove what no longer exists", found, len(declared))
	}
	const module = "github.com/nudgethis/git-nudge/"
	above := []string{"internal/nudge", "internal/cli", "internal/dashboard", "internal/operation", "internal/autodev"}
	for _, b := range below {
		imps := nonTestImports(t, filepath.Join("..", "..", filepath.FromSlash(b)))
		if len(imps) == 0 {
			t.Errorf("%s: no Go files found; remove it from below", b)
		}
		for p, f := range imps {
			rest, ok := strings.CutPrefix(p, module)
			if !ok {
				continue
			}
			for _, a := range above {
				if rest == a || strings.HasPrefix(rest, a+"/") {
					t.Errorf("%s imports %s: a package below the workspace core imports nothing above it", f, p)
				}
			}
		}
	}
}

// TestCheckpointJournalBelowAutodev: git autodev's journal of checkpoints
// (internal/autodev/checkpoints) stands below the autodev workflows, which
// import it: it imports only the state layer (journal, refs, filecache,
// txn, agenthooks), never a workflow, the operation log or the commands.
func TestCheckpointJournalBelowAutodev(t *testing.T) {
	t.Parallel()
	const mod = "github.com/nudgethis/git-nudge/internal/"
	allowed := map[string]bool{
		mod + "journal": true, mod + "refs": true, mod + "filecache": true,
		mod + "txn": true, mod + "agenthooks": true,
	}
	for p, f := range nonTestImports(t, filepath.Join("..", "autodev", "checkpoints")) {
		if strings.HasPrefix(p, mod) && !allowed[p] {
			t.Errorf("%s imports %s: the checkpoint journal imports only the state layer", f, p)
		}
	}
	if _, ok := nonTestImports(t, filepath.Join("..", "autodev"))[mod+"autodev/checkpoints"]; !ok {
		t.Error("internal/autodev no longer imports internal/autodev/checkpoints: update this test")
	}
}

// nonTestImports is what the non-test Go files of dir import: each import
// path, with a file that imports it. A folder without Go files fails the
// test.
func nonTestImports(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	out := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			out[p] = f
		}
	}
	return out
}
