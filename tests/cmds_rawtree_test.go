package tests

import (
	"bytes"
	"encoding/hex"
	"os/exec"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	extraCmds["rawtree"] = rawTree
}

// rawtree [-commit] VAR MODE NAME OBJECT...: write a tree object holding
// exactly the given entries, in the given order, with no check at all
// (git hash-object -t tree --literally), as a task could craft one, and
// set VAR to its id. OBJECT is any revision git rev-parse resolves (a
// blob id, "HEAD:a.txt", the value of an earlier rawtree) or file:PATH
// (that file's bytes, written as a blob). With -commit,
// VAR is set to a commit of that tree whose parent is HEAD instead.
func rawTree(ts *testscript.TestScript, neg bool, args []string) {
	commit := len(args) > 0 && args[0] == "-commit"
	if commit {
		args = args[1:]
	}
	if neg || len(args) < 1 || (len(args)-1)%3 != 0 {
		ts.Fatalf("usage: rawtree [-commit] VAR MODE NAME OBJECT...")
	}
	var obj bytes.Buffer
	for i := 1; i < len(args); i += 3 {
		var id string
		if f, ok := strings.CutPrefix(args[i+2], "file:"); ok {
			id = strings.TrimSpace(scriptGit(ts, "hash-object", "-w", "--no-filters", "--", ts.MkAbs(f)))
		} else {
			id = strings.TrimSpace(scriptGit(ts, "rev-parse", "--verify", args[i+2]))
		}
		raw, err := hex.DecodeString(id)
		ts.Check(err)
		obj.WriteString(args[i] + " " + args[i+1])
		obj.WriteByte(0)
		obj.Write(raw)
	}
	c := exec.Command("git", "hash-object", "-t", "tree", "--literally", "-w", "--stdin")
	c.Dir = ts.MkAbs(".")
	for _, k := range []string{"HOME", "PATH", "XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM", "TZ", "LC_ALL"} {
		c.Env = append(c.Env, k+"="+ts.Getenv(k))
	}
	c.Stdin = &obj
	out, err := c.Output()
	ts.Check(err)
	id := strings.TrimSpace(string(out))
	if commit {
		id = strings.TrimSpace(scriptGit(ts, "commit-tree", "-p", "HEAD", "-m", "crafted", id))
	}
	ts.Setenv(args[0], id)
}
