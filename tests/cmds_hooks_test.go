package tests

import (
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	extraCmds["hooksample"] = hookSample
}

// hooksample NAME DEST: copy the recorded hook payload
// tests/testdata/hooks/NAME to DEST in the script's work folder.
func hookSample(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: hooksample NAME DEST")
	}
	b, err := os.ReadFile(filepath.Join("testdata", "hooks", args[0]))
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), b, 0o644))
}
