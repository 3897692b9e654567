package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/rogpeppe/go-internal/testscript"
)

// autodevCommands are the custom commands of the autodev scenarios.
func autodevCommands() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"oracle-journal": oracleJournal,
		"oracle-same":    oracleSame,
		"waitfile":       waitFile,
		"sigstate":       sigState,
		"oracle-expand":  oracleExpand,
	}
}

// oracle-journal DIR ID: read DIR/.autodev/checkpoints.json, find entry ID,
// check with go-git that refs/autodev/checkpoints/ID exists and points at
// the entry's commit, and print "ID TYPE LABEL | task=T mode=M".
func oracleJournal(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: oracle-journal DIR ID")
	}
	data, err := os.ReadFile(filepath.Join(ts.MkAbs(args[0]), ".autodev", "checkpoints.json"))
	ts.Check(err)
	var entries []map[string]any
	ts.Check(json.Unmarshal(data, &entries))
	for _, e := range entries {
		if e["id"] != args[1] {
			continue
		}
		for _, k := range []string{"id", "commit", "label", "type", "time", "task", "mode"} {
			if _, ok := e[k]; !ok {
				ts.Fatalf("entry %s has no %q field", args[1], k)
			}
		}
		if _, err := time.Parse(time.RFC3339, e["time"].(string)); err != nil {
			ts.Fatalf("entry %s: time %q is not RFC 3339", args[1], e["time"])
		}
		r := openRepo(ts, args[0])
		ref, err := r.Reference(plumbing.ReferenceName("refs/autodev/checkpoints/"+args[1]), true)
		if err != nil {
			ts.Fatalf("go-git: refs/autodev/checkpoints/%s: %v", args[1], err)
		}
		if ref.Hash().String() != e["commit"] {
			ts.Fatalf("refs/autodev/checkpoints/%s is %s, the journal says %s", args[1], ref.Hash(), e["commit"])
		}
		if _, err := r.CommitObject(ref.Hash()); err != nil {
			ts.Fatalf("go-git: commit %s: %v", ref.Hash(), err)
		}
		str := func(v any) string {
			if v == nil {
				return "null"
			}
			return fmt.Sprint(v)
		}
		fmt.Fprintf(ts.Stdout(), "%s %s %s | task=%s mode=%s\n", e["id"], e["type"], e["label"], str(e["task"]), str(e["mode"]))
		return
	}
	if !neg {
		ts.Fatalf("no entry %s in the journal", args[1])
	}
}

// oracle-same DIR REV REV...: all revisions resolve (go-git) to one commit.
// Negated: they do not all resolve to the same one.
func oracleSame(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 3 {
		ts.Fatalf("usage: oracle-same DIR REV REV...")
	}
	r := openRepo(ts, args[0])
	first := resolveCommit(ts, r, args[1]).Hash
	same := true
	for _, rev := range args[2:] {
		if resolveCommit(ts, r, rev).Hash != first {
			same = false
		}
	}
	if same == neg {
		ts.Fatalf("oracle-same %v: same=%v", args[1:], same)
	}
}

// waitfile FILE: wait (up to 30 s) until FILE exists.
func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	path := ts.MkAbs(args[0])
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	ts.Fatalf("%s did not appear", args[0])
}

// sigstate DIR SIGNAL: send SIGNAL (INT, TERM or KILL) to the pid recorded in
// DIR/.autodev/state.json.
func sigState(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: sigstate DIR INT|TERM|KILL")
	}
	data, err := os.ReadFile(filepath.Join(ts.MkAbs(args[0]), ".autodev", "state.json"))
	ts.Check(err)
	var st struct {
		PID *int `json:"pid"`
	}
	ts.Check(json.Unmarshal(data, &st))
	if st.PID == nil {
		ts.Fatalf("state.json has no pid")
	}
	sig := map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM, "KILL": syscall.SIGKILL}[args[1]]
	if sig == 0 {
		ts.Fatalf("unknown signal %s", args[1])
	}
	ts.Check(syscall.Kill(*st.PID, sig))
	fmt.Fprintln(ts.Stdout(), "sent SIG"+args[1]+" to pid "+strconv.Itoa(*st.PID))
}

var revToken = regexp.MustCompile(`\{sha7:([^}]+)\}`)

// oracle-expand DIR SRC DST: copy SRC to DST replacing every {sha7:REV}
// with the first 7 hex digits of REV's commit, resolved by go-git.
func oracleExpand(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: oracle-expand DIR SRC DST")
	}
	r := openRepo(ts, args[0])
	data, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	out := revToken.ReplaceAllStringFunc(string(data), func(tok string) string {
		rev := revToken.FindStringSubmatch(tok)[1]
		return resolveCommit(ts, r, rev).Hash.String()[:7]
	})
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(out), 0o644))
}
