package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const byCaller = `package p

import (
	"fmt"
	"strings"
)

// This file holds what the save command needs.

// A is moved with this comment.
func A() string { return strings.ToUpper("a") }

// Section comment that goes with B.

// B stays.
func B() { fmt.Println(A()) } // trailing

const (
	X = 1
	Y = 2
)
`

// TestMovesDeclarationsWithCommentsAndImports: declarations go to their
// files with their comments, each file gets the imports it uses and the
// emptied file is removed.
func TestMovesDeclarationsWithCommentsAndImports(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"save.go": byCaller, "save_test.go": "package p\n"})
	m := []target{
		{File: "a.go", Header: "This file holds A.", Names: []string{"A", "X", "Y"}},
		{File: "b.go", Header: "This file holds B.", Names: []string{"B"}},
	}
	if err := run(dir, m, false, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "save.go")); !os.IsNotExist(err) {
		t.Errorf("save.go left behind: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "save_test.go")); err != nil {
		t.Errorf("the test file was touched: %v", err)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "a.go"))
	b, _ := os.ReadFile(filepath.Join(dir, "b.go"))
	for _, want := range []string{"// This file holds A.", "import \"strings\"", "// A is moved with this comment.", "X = 1"} {
		if !strings.Contains(string(a), want) {
			t.Errorf("a.go lacks %q:\n%s", want, a)
		}
	}
	for _, want := range []string{"import \"fmt\"", "// Section comment that goes with B.", "// B stays.", "// trailing"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("b.go lacks %q:\n%s", want, b)
		}
	}
	if strings.Contains(string(a)+string(b), "save command") {
		t.Error("the old file's header comment was kept")
	}
}

// TestUnmappedFailsAndWritesNothing: a declaration missing from the
// mapping (one another branch added) stops the tool before any file is
// written, naming it; a group of consts split across files too.
func TestUnmappedFailsAndWritesNothing(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"save.go": byCaller})
	err := run(dir, []target{{File: "a.go", Names: []string{"A", "X", "Y"}}}, false, false)
	if err == nil || !strings.Contains(err.Error(), "B (in save.go)") {
		t.Errorf("unmapped B: err = %v", err)
	}
	err = run(dir, []target{{File: "a.go", Names: []string{"A", "B", "X"}}, {File: "b.go", Names: []string{"Y"}}}, false, false)
	if err == nil || !strings.Contains(err.Error(), "X, Y") {
		t.Errorf("split const group: err = %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "save.go")); string(got) != byCaller {
		t.Error("save.go changed although the tool failed")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files written although the tool failed: %v", ents)
	}
}
