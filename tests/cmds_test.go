package tests

import (
	"crypto/sha256"
	"fmt"
	"os"
	"sort"
	"strings"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/rogpeppe/go-internal/testscript"
)

// Commands are the scripts' custom commands. The oracle-* commands read the
// repository with go-git, independently of the git plumbing under test.
func Commands() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	cmds := map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"oracle-tree":   oracleTree,
		"oracle-commit": oracleCommit,
		"oracle-cat":    oracleCat,
		"filesig":       fileSig,
		"mktask":        mkTask,
		"settask":       setTask,
	}
	for name, f := range autodevCommands() {
		cmds[name] = f
	}
	// Areas add their commands from their own cmds_<area>_test.go files.
	for name, fn := range extraCmds {
		cmds[name] = fn
	}
	return cmds
}

// extraCmds are filled by init functions in cmds_<area>_test.go files.
var extraCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){}

func openRepo(ts *testscript.TestScript, dir string) *gogit.Repository {
	r, err := gogit.PlainOpenWithOptions(ts.MkAbs(dir), &gogit.PlainOpenOptions{EnableDotGitCommonDir: true})
	ts.Check(err)
	return r
}

func resolveCommit(ts *testscript.TestScript, r *gogit.Repository, rev string) *object.Commit {
	h, err := r.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		ts.Fatalf("go-git cannot resolve %s: %v", rev, err)
	}
	c, err := r.CommitObject(*h)
	ts.Check(err)
	return c
}

// oracle-tree DIR REV: print "<mode> <path>" for every file of REV's tree.
func oracleTree(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: oracle-tree DIR REV")
	}
	c := resolveCommit(ts, openRepo(ts, args[0]), args[1])
	tree, err := c.Tree()
	ts.Check(err)
	var lines []string
	ts.Check(tree.Files().ForEach(func(f *object.File) error {
		lines = append(lines, fmt.Sprintf("%s %s", f.Mode.String()[1:], f.Name))
		return nil
	}))
	// Submodules (gitlinks) are not files to go-git; list them too.
	walker := object.NewTreeWalker(tree, true, nil)
	defer walker.Close()
	for {
		name, entry, err := walker.Next()
		if err != nil {
			break
		}
		if entry.Mode.String() == "0160000" {
			lines = append(lines, "160000 "+name)
		}
	}
	sort.Strings(lines)
	fmt.Fprintln(ts.Stdout(), strings.Join(lines, "\n"))
}

// oracle-cat DIR REV PATH: print the content of PATH in REV.
func oracleCat(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: oracle-cat DIR REV PATH")
	}
	c := resolveCommit(ts, openRepo(ts, args[0]), args[1])
	f, err := c.File(args[2])
	if neg {
		if err == nil {
			ts.Fatalf("%s unexpectedly present in %s", args[2], args[1])
		}
		return
	}
	ts.Check(err)
	s, err := f.Contents()
	ts.Check(err)
	fmt.Fprint(ts.Stdout(), s)
}

// oracle-commit DIR REV: print author, committer, parent count and subject.
func oracleCommit(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: oracle-commit DIR REV")
	}
	c := resolveCommit(ts, openRepo(ts, args[0]), args[1])
	subject, _, _ := strings.Cut(c.Message, "\n")
	fmt.Fprintf(ts.Stdout(), "author: %s <%s>\ncommitter: %s <%s>\nparents: %d\nsubject: %s\n",
		c.Author.Name, c.Author.Email, c.Committer.Name, c.Committer.Email, c.NumParents(), subject)
	for _, p := range c.ParentHashes {
		fmt.Fprintf(ts.Stdout(), "parent: %s\n", p)
	}
}

// filesig save NAME FILE / filesig check NAME FILE: remember and compare a
// file's bytes, mode and modification time (for "the index is untouched").
func fileSig(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 || (args[0] != "save" && args[0] != "check") {
		ts.Fatalf("usage: filesig save|check NAME FILE")
	}
	path := ts.MkAbs(args[2])
	st, err := os.Stat(path)
	ts.Check(err)
	data, err := os.ReadFile(path)
	ts.Check(err)
	sig := fmt.Sprintf("%x %o %d", sha256.Sum256(data), st.Mode(), st.ModTime().UnixNano())
	key := "FILESIG_" + args[1]
	if args[0] == "save" {
		ts.Setenv(key, sig)
		return
	}
	same := ts.Getenv(key) == sig
	if same == neg {
		ts.Fatalf("%s signature: saved %q, now %q", args[2], ts.Getenv(key), sig)
	}
}
