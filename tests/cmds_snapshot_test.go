package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	for name, fn := range map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"mkfile":      mkFile,
		"writeq":      writeQuoted,
		"addall-tree": addAllTree,
		"nfiles":      nFiles,
		"task-set":    taskSet,
		"signal":      signalPID,
	} {
		extraCmds[name] = fn
	}
}

// mkfile SIZE PATH: a file of SIZE bytes (suffix K or M), for size limits.
func mkFile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: mkfile SIZE PATH")
	}
	s, mult := args[0], int64(1)
	switch {
	case strings.HasSuffix(s, "M"):
		s, mult = strings.TrimSuffix(s, "M"), 1<<20
	case strings.HasSuffix(s, "K"):
		s, mult = strings.TrimSuffix(s, "K"), 1<<10
	}
	n, err := strconv.ParseInt(s, 10, 64)
	ts.Check(err)
	f, err := os.Create(ts.MkAbs(args[1]))
	ts.Check(err)
	_, err = f.Write([]byte("x"))
	ts.Check(err)
	ts.Check(f.Truncate(n * mult))
	ts.Check(f.Close())
}

// writeq PATH CONTENT: write a file whose name and content are Go-quoted
// strings ("new\nline"), for names and bytes a txtar file cannot hold.
func writeQuoted(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: writeq PATH CONTENT")
	}
	name, err := strconv.Unquote(`"` + args[0] + `"`)
	ts.Check(err)
	content, err := strconv.Unquote(`"` + args[1] + `"`)
	ts.Check(err)
	p := ts.MkAbs(name)
	ts.Check(os.MkdirAll(filepath.Dir(p), 0o755))
	ts.Check(os.WriteFile(p, []byte(content), 0o644))
}

// addall-tree DIR: print the tree `git add -A` would write from DIR's work
// tree, using a copy of its index (the oracle for what a snapshot should
// hold when nothing is skipped).
func addAllTree(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: addall-tree DIR [PATHSPEC...]")
	}
	dir := ts.MkAbs(args[0])
	tmp, err := os.MkdirTemp("", "addall")
	ts.Check(err)
	defer os.RemoveAll(tmp)
	gitDir := gitOut(ts, dir, nil, "rev-parse", "--absolute-git-dir")
	ix := filepath.Join(tmp, "index")
	if data, err := os.ReadFile(filepath.Join(gitDir, "index")); err == nil {
		ts.Check(os.WriteFile(ix, data, 0o644))
	}
	env := []string{"GIT_INDEX_FILE=" + ix}
	gitOut(ts, dir, env, append([]string{"add", "-A", "--", "."}, args[1:]...)...)
	fmt.Fprintln(ts.Stdout(), gitOut(ts, dir, env, "write-tree"))
}

func gitOut(ts *testscript.TestScript, dir string, env []string, args ...string) string {
	c := exec.Command("git", args...)
	c.Dir = dir
	c.Env = append(os.Environ(), env...)
	for _, kv := range []string{"HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM"} {
		c.Env = append(c.Env, kv+"="+ts.Getenv(kv))
	}
	out, err := c.CombinedOutput()
	if err != nil {
		ts.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// nfiles N DIR: create N small files f0..f<N-1> in DIR.
func nFiles(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: nfiles N DIR")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	dir := ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(dir, 0o755))
	for i := 0; i < n; i++ {
		ts.Check(os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d", i)), []byte(fmt.Sprintf("%d\n", i)), 0o644))
	}
}

// task-set ID FIELD JSON: set one field of .nudgethis/tasks/ID.json (in the
// current folder) to a JSON value, as a crashed or older process might have
// left it.
func taskSet(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: task-set ID FIELD JSON")
	}
	path := ts.MkAbs(filepath.Join(".nudgethis", "tasks", args[0]+".json"))
	data, err := os.ReadFile(path)
	ts.Check(err)
	var rec map[string]json.RawMessage
	ts.Check(json.Unmarshal(data, &rec))
	if !json.Valid([]byte(args[2])) {
		ts.Fatalf("not JSON: %s", args[2])
	}
	rec[args[1]] = json.RawMessage(args[2])
	data, err = json.MarshalIndent(rec, "", "  ")
	ts.Check(err)
	ts.Check(os.WriteFile(path, data, 0o644))
}

// signal NAME PIDFILE: send SIGTERM or SIGINT to the process whose id is
// in PIDFILE (testscript's kill only reaches the direct child, here git).
func signalPID(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: signal TERM|INT PIDFILE")
	}
	sig := map[string]syscall.Signal{"TERM": syscall.SIGTERM, "INT": syscall.SIGINT}[args[0]]
	if sig == 0 {
		ts.Fatalf("unknown signal %s", args[0])
	}
	data, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	ts.Check(err)
	ts.Check(syscall.Kill(pid, sig))
}
