// Package testrepo is for the suite's Go tests only: a repository in a
// temp folder on which a test sets the scene with git itself (commits made
// with plumbing, files written with their modes) and reads the work tree
// back with an independent reader, to check what the code under test did.
// It knows nothing of the suite's workflows, so that any package's tests,
// the workflows' own included, can use it.
package testrepo

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/nudgethis/git-nudge/internal/testutil"
)

var hermetic sync.Once

// isolateGit isolates the test process from the developer's git setup
// (testutil.Isolate: fresh HOME, no system config, fixed identity and
// dates), once, unless a TestMain calling testutil.Main did it already.
func isolateGit() {
	hermetic.Do(func() {
		if testutil.Isolated() {
			return
		}
		home, err := os.MkdirTemp("", "nudge-test-home-")
		if err == nil {
			err = testutil.Isolate(home)
		}
		if err != nil {
			panic(err)
		}
	})
}

// Repo is a repository in a temp folder.
type Repo struct {
	T   *testing.T
	Dir string
	// StateDir is a folder of the work tree's top level that Tree leaves
	// out with .git (a tool's state folder), "" for none.
	StateDir string
}

// New is a new repository (git init -q), with config set as key, value
// pairs.
func New(t *testing.T, config ...string) *Repo {
	t.Helper()
	return NewInit(t, []string{"init", "-q"}, config...)
}

// NewInit is New with other git init arguments.
func NewInit(t *testing.T, initArgs []string, config ...string) *Repo {
	t.Helper()
	isolateGit()
	r := &Repo{T: t, Dir: t.TempDir()}
	r.Git(initArgs...)
	for i := 0; i+1 < len(config); i += 2 {
		r.Git("config", config[i], config[i+1])
	}
	return r
}

// GitIn runs git in the repository with stdin (nil: none) and env added
// to the environment, and returns its stdout; it fails the test when git
// fails.
func (r *Repo) GitIn(stdin []byte, env []string, args ...string) string {
	r.T.Helper()
	out, err := testutil.GitIO(r.Dir, stdin, env, args...)
	if err != nil {
		r.T.Fatal(err)
	}
	return out
}

// Git is GitIn without stdin or added environment.
func (r *Repo) Git(args ...string) string { return r.GitIn(nil, nil, args...) }

// Rev is the object id rev names.
func (r *Repo) Rev(rev string) string {
	return strings.TrimSpace(r.Git("rev-parse", "--verify", rev))
}

// Write writes a work-tree file with content and mode (folders made as
// needed; the mode set whatever the umask).
func (r *Repo) Write(p, content string, mode fs.FileMode) {
	r.T.Helper()
	full := filepath.Join(r.Dir, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		r.T.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), mode); err != nil {
		r.T.Fatal(err)
	}
	if err := os.Chmod(full, mode); err != nil {
		r.T.Fatal(err)
	}
}

// CommitAll stages everything and commits it (empty allowed); it returns
// the new commit's id.
func (r *Repo) CommitAll(msg string) string {
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", msg)
	return r.Rev("HEAD")
}

// Change is one path of a commit made by CommitOn: content and mode, or
// deleted.
type Change struct {
	Content string
	Mode    string // "100644", "100755", "120000" (Content = target), "160000" (Content = commit id)
	Deleted bool
}

// Put is a regular file with content; PutExec an executable one; Del no
// file.
func Put(content string) Change     { return Change{Content: content, Mode: "100644"} }
func PutExec(content string) Change { return Change{Content: content, Mode: "100755"} }
func Del() Change                   { return Change{Deleted: true} }

// CommitOn makes a commit whose tree is base's with changes applied
// (content stored as is, no filters), with base as parent ("" for none),
// without touching the work tree or the user's index.
func (r *Repo) CommitOn(base string, changes map[string]Change) string {
	r.T.Helper()
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(r.T.TempDir(), "index")}
	if base != "" {
		r.GitIn(nil, env, "read-tree", base)
	}
	for p, c := range changes {
		if c.Deleted {
			r.GitIn(nil, env, "update-index", "--force-remove", "--", p)
		}
	}
	for p, c := range changes {
		if c.Deleted {
			continue
		}
		blob := c.Content
		if c.Mode != "160000" {
			blob = strings.TrimSpace(r.GitIn([]byte(c.Content), nil, "hash-object", "-w", "--no-filters", "--stdin"))
		}
		r.GitIn(nil, env, "update-index", "--add", "--cacheinfo", c.Mode+","+blob+","+p)
	}
	tree := strings.TrimSpace(r.GitIn(nil, env, "write-tree"))
	args := []string{"commit-tree", tree, "-m", "result"}
	if base != "" {
		args = append(args, "-p", base)
	}
	return strings.TrimSpace(r.Git(args...))
}

// RawChange is one path of the patch from one commit to another, as git
// diff-tree --raw gives it: a mode and blob nil where the side holds no
// file. Its fields are those of a task record's file change, which it
// converts to.
type RawChange struct {
	Path    string
	Status  string // "A", "M", "D", "T"
	OldMode *string
	OldBlob *string
	NewMode *string
	NewBlob *string
}

// DiffRaw lists the patch from a to b (no rename detection).
func (r *Repo) DiffRaw(a, b string) []RawChange {
	out := r.Git("diff-tree", "-r", "--no-renames", "-z", "--raw", a, b)
	var files []RawChange
	recs := strings.Split(out, "\x00")
	for i := 0; i+1 < len(recs); i += 2 {
		f := strings.Fields(strings.TrimPrefix(recs[i], ":"))
		if len(f) != 5 {
			break
		}
		fc := RawChange{Path: recs[i+1], Status: f[4][:1]}
		if f[0] != "000000" {
			fc.OldMode, fc.OldBlob = &f[0], &f[2]
		}
		if f[1] != "000000" {
			fc.NewMode, fc.NewBlob = &f[1], &f[3]
		}
		files = append(files, fc)
	}
	return files
}

// Tree is every entry of the work tree (outside .git and StateDir) with
// its bytes and permission bits, for "nothing changed" and exact
// round-trip checks.
func (r *Repo) Tree() map[string]string {
	r.T.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(r.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(r.Dir, p)
		if rel == ".git" || (r.StateDir != "" && rel == r.StateDir) {
			return filepath.SkipDir
		}
		if rel == "." {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			m[rel] = "symlink -> " + target
		case d.IsDir():
			m[rel+"/"] = fmt.Sprintf("dir %o", info.Mode().Perm())
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[rel] = fmt.Sprintf("%o %x", info.Mode().Perm(), sha256.Sum256(b))
		}
		return nil
	})
	if err != nil {
		r.T.Fatal(err)
	}
	return m
}

// IndexSig is the user's index: bytes, mode and modification time.
func (r *Repo) IndexSig() string {
	r.T.Helper()
	p := filepath.Join(r.Dir, ".git", "index")
	st, err := os.Stat(p)
	if err != nil {
		return "no index"
	}
	b, _ := os.ReadFile(p)
	return fmt.Sprintf("%x %v %d", sha256.Sum256(b), st.Mode(), st.ModTime().UnixNano())
}

// DiffTrees lists, one a line, the entries that differ between two Trees.
func DiffTrees(a, b map[string]string) string {
	var out []string
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	for k := range keys {
		if a[k] != b[k] {
			out = append(out, fmt.Sprintf("%q: %q -> %q", k, a[k], b[k]))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// Read returns a work-tree file's bytes and whether it is executable.
func (r *Repo) Read(p string) (string, bool) {
	r.T.Helper()
	full := filepath.Join(r.Dir, p)
	b, err := os.ReadFile(full)
	if err != nil {
		r.T.Fatalf("reading %s: %v", p, err)
	}
	st, _ := os.Stat(full)
	return string(b), st.Mode()&0o100 != 0
}

// Absent reports whether nothing is at a work-tree path.
func (r *Repo) Absent(p string) bool {
	_, err := os.Lstat(filepath.Join(r.Dir, p))
	return os.IsNotExist(err)
}

// CommitBase writes a varied first set of files (a folder two deep, an
// executable, binary bytes, names with spaces, accents, a leading dash
// and a newline, an empty file) and commits it ("base"); it returns the
// commit's id.
func (r *Repo) CommitBase() string {
	r.T.Helper()
	r.Write("mod.txt", "one\ntwo\n", 0o644)
	r.Write("gone/deep/del.txt", "to be deleted\n", 0o644)
	r.Write("tool.sh", "#!/bin/sh\necho hi\n", 0o644)
	r.Write("img.bin", "\x00\x01\x02\xff\xfe", 0o644)
	r.Write("with space/ünï cödé.txt", "unicode\n", 0o644)
	r.Write("-dash.txt", "dash\n", 0o644)
	r.Write("nl\nname.txt", "newline name\n", 0o755)
	r.Write("empty.txt", "", 0o644)
	r.Write("unrelated.txt", "mine\n", 0o644)
	return r.CommitAll("base")
}
