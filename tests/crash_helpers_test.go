//go:build unix

package tests

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/nudgethis/git-nudge/internal/autodev"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/apply"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// This file is the harness of the crash, concurrency and bad-input tests
// (crash_*_test.go): a repository in a temp folder with an isolated
// environment, the two binaries run directly (as git would run them, but
// without git in between, so that a kill reaches the process itself), and
// exact pictures of the work tree, the index and the journals to compare
// before and after.

// sandbox is one repository and the environment its commands run with.
type sandbox struct {
	t   testing.TB
	dir string   // top level of the work tree
	env []string // isolated environment for every child
}

// newSandbox makes an empty repository (branch main) with a private HOME
// holding a test identity, no system config, fixed dates and a private
// TMPDIR (which apply and undo must leave untouched).
func newSandbox(t testing.TB) *sandbox {
	t.Helper()
	return newSandboxIn(t, t.TempDir())
}

// newFastSandbox is newSandbox on a memory file system (/dev/shm) when
// there is one and TMPDIR does not name another place: for the loops that
// run hundreds of commands, where every fsync of a disk costs and a SIGKILL
// tests nothing that depends on the disk.
func newFastSandbox(t testing.TB) *sandbox {
	t.Helper()
	if os.Getenv("TMPDIR") == "" {
		if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
			if dir, err := os.MkdirTemp("/dev/shm", "git-nudge-crash-"); err == nil {
				t.Cleanup(func() { os.RemoveAll(dir) })
				return newSandboxIn(t, dir)
			}
		}
	}
	return newSandbox(t)
}

func newSandboxIn(t testing.TB, root string) *sandbox {
	t.Helper()
	// The crash, concurrency, race and bad-input loops built on this are
	// the full run's; the fast tier (go test -short) covers the commands
	// through the testscript scenarios.
	if testing.Short() {
		t.Skip("crash and concurrency loops run without -short")
	}
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	tmp := filepath.Join(root, "tmp")
	dir := filepath.Join(root, "repo")
	for _, d := range []string{home, tmp, dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	vars, err := testutil.IsolatedHome(home)
	if err != nil {
		t.Fatal(err)
	}
	s := &sandbox{t: t, dir: dir, env: append([]string{
		"PATH=" + os.Getenv("PATH"), // holds git-nudge and git-autodev (testscript.Main)
		"TMPDIR=" + tmp, "LC_ALL=C", "NO_COLOR=1",
	}, vars...)}
	s.git("init", "-q")
	return s
}

// res is how a command ended.
type res struct {
	stdout, stderr string
	code           int  // exit status; -1 when killed
	killed         bool // ended by SIGKILL
}

func (r res) String() string {
	return fmt.Sprintf("exit %d (killed %v)\nstdout:\n%s\nstderr:\n%s", r.code, r.killed, r.stdout, r.stderr)
}

// command prepares name (git, git-nudge, git-autodev) in dir with the
// sandbox environment plus extra.
func (s *sandbox) command(dir, name string, args []string, extra ...string) *exec.Cmd {
	path, err := exec.LookPath(name)
	if err != nil {
		s.t.Fatalf("%s is not on PATH: %v", name, err)
	}
	c := exec.Command(path, args...)
	c.Dir = dir
	c.Env = append(append([]string{}, s.env...), extra...)
	return c
}

func finish(c *exec.Cmd, stdout, stderr *bytes.Buffer, err error) res {
	r := res{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			r.killed = true
		}
	default:
		r.code = -2
		r.stderr += "\n(start failed: " + err.Error() + ")"
	}
	return r
}

// runIn runs a binary in dir and reports how it ended.
func (s *sandbox) runIn(dir, name string, args []string, extra ...string) res {
	c := s.command(dir, name, args, extra...)
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	return finish(c, &stdout, &stderr, c.Run())
}

// nudge and autodev run the binaries at the top level.
func (s *sandbox) nudge(args ...string) res   { return s.runIn(s.dir, "git-nudge", args) }
func (s *sandbox) autodev(args ...string) res { return s.runIn(s.dir, "git-autodev", args) }

// ok fails the test unless r exited 0.
func (s *sandbox) ok(r res, what string) res {
	s.t.Helper()
	if r.code != 0 || r.killed {
		s.t.Fatalf("%s: %s", what, r)
	}
	return r
}

// refused fails the test unless r exited 1 with want in its stderr.
func (s *sandbox) refused(r res, what, want string) {
	s.t.Helper()
	if r.code != 1 || !strings.Contains(r.stderr, want) {
		s.t.Fatalf("%s: want exit 1 and %q in stderr; got %s", what, want, r)
	}
}

// gitEnv runs git in the work tree with extra environment and stdin; it
// stops the test when git fails and returns stdout without the last
// newline.
func (s *sandbox) gitEnv(extra []string, stdin string, args ...string) string {
	s.t.Helper()
	c := s.command(s.dir, "git", args, extra...)
	c.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		s.t.Fatalf("git %q: %v\n%s", args, err, stderr.String())
	}
	return strings.TrimSuffix(stdout.String(), "\n")
}

func (s *sandbox) git(args ...string) string { return s.gitEnv(nil, "", args...) }

// tryGit runs git and reports failure instead of stopping the test.
func (s *sandbox) tryGit(args ...string) (string, error) {
	c := s.command(s.dir, "git", args)
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		return "", fmt.Errorf("git %q: %v: %s", args, err, stderr.String())
	}
	return strings.TrimSuffix(stdout.String(), "\n"), nil
}

// mktask records task id (ready) with the given snapshot and result.
func (s *sandbox) mktask(id, snap, result string) {
	s.t.Helper()
	if err := makeTask(func(a ...string) string { return s.git(a...) + "\n" }, id, snap, result); err != nil {
		s.t.Fatal(err)
	}
}

// spec is a file's content and executable bit; a nil *spec is no file.
type spec struct {
	data string
	exec bool
}

func file(data string) *spec     { return &spec{data: data} }
func execFile(data string) *spec { return &spec{data: data, exec: true} }

func (f *spec) String() string {
	if f == nil {
		return "(no file)"
	}
	d := f.data
	if len(d) > 40 {
		d = d[:40] + "..."
	}
	return fmt.Sprintf("%q exec=%v", d, f.exec)
}

func sameSpec(a, b *spec) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// write puts files (path -> spec, nil removes) into the work tree.
func (s *sandbox) write(files map[string]*spec) {
	s.t.Helper()
	for rel, f := range files {
		p := filepath.Join(s.dir, filepath.FromSlash(rel))
		if f == nil {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				s.t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			s.t.Fatal(err)
		}
		mode := fs.FileMode(0o644)
		if f.exec {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(f.data), mode); err != nil {
			s.t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			s.t.Fatal(err)
		}
	}
}

// commitTree makes a commit whose tree is parent's tree with changes
// (path -> spec, nil removes), through a private index: the work tree and
// the user's index are not touched. An empty parent makes a root commit.
func (s *sandbox) commitTree(parent string, changes map[string]*spec, msg string) string {
	s.t.Helper()
	ixEnv := []string{"GIT_INDEX_FILE=" + filepath.Join(s.t.TempDir(), "index")}
	if parent != "" {
		s.gitEnv(ixEnv, "", "read-tree", parent)
	}
	var info strings.Builder
	for _, p := range sortedKeys(changes) {
		f := changes[p]
		if f == nil {
			fmt.Fprintf(&info, "0 %s\t%s\n", strings.Repeat("0", 40), p)
			continue
		}
		blob := s.gitEnv(nil, f.data, "hash-object", "-w", "--stdin")
		mode := "100644"
		if f.exec {
			mode = "100755"
		}
		fmt.Fprintf(&info, "%s %s\t%s\n", mode, blob, p)
	}
	s.gitEnv(ixEnv, info.String(), "update-index", "--index-info")
	tree := s.gitEnv(ixEnv, "", "write-tree")
	args := []string{"commit-tree", tree, "-m", msg}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	return s.git(args...)
}

// commitAll stages everything and commits it (hooks off).
func (s *sandbox) commitAll(msg string) string {
	s.git("add", "-A")
	s.git("-c", "core.hooksPath=/dev/null", "commit", "-q", "--allow-empty", "-m", msg)
	return s.git("rev-parse", "HEAD")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// stateDirs are the tools' own folders, never part of a picture.
var stateDirs = map[string]bool{".git": true, ".nudgethis": true, ".autodev": true}

// picture reads every file and symlink of the work tree (outside .git,
// .nudgethis and .autodev) as specs; a symlink is its target prefixed with
// "-> ". Empty folders are listed with a nil spec under "dir/".
func (s *sandbox) picture() map[string]*spec {
	s.t.Helper()
	return pictureOf(s.t, s.dir)
}

func pictureOf(t testing.TB, root string) map[string]*spec {
	t.Helper()
	out := map[string]*spec{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if d.IsDir() {
			if stateDirs[rel] {
				return filepath.SkipDir
			}
			if ents, err := os.ReadDir(p); err == nil && len(ents) == 0 {
				out[rel+"/"] = nil
			}
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = &spec{data: "-> " + target}
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = &spec{data: string(data), exec: fi.Mode()&0o100 != 0}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// diffPictures lists the paths where two pictures differ, ignoring the
// paths skip accepts.
func diffPictures(a, b map[string]*spec, skip func(string) bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range []map[string]*spec{a, b} {
		for p := range m {
			if seen[p] || (skip != nil && skip(p)) {
				continue
			}
			seen[p] = true
			x, xok := a[p]
			y, yok := b[p]
			if xok != yok || !sameSpec(x, y) {
				out = append(out, fmt.Sprintf("%s: %v -> %v", p, x, y))
			}
		}
	}
	sort.Strings(out)
	return out
}

// sig is a file's bytes, mode and modification time: "untouched" means
// the same sig (filesig in the scripts).
func sig(t testing.TB, path string) string {
	t.Helper()
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "(absent)"
	}
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x %o %d", sha256.Sum256(data), st.Mode(), st.ModTime().UnixNano())
}

func (s *sandbox) indexSig() string { return sig(s.t, filepath.Join(s.dir, ".git", "index")) }

// indexEntries is `git ls-files -s` as path -> "mode blob stage".
func (s *sandbox) indexEntries() map[string]string {
	out := map[string]string{}
	for _, l := range strings.Split(s.git("ls-files", "-s", "-z"), "\x00") {
		meta, p, ok := strings.Cut(l, "\t")
		if ok {
			out[p] = meta
		}
	}
	return out
}

// checkJournals decodes every journal the suite writes in the work tree
// (tasks/<id>.json, saves.json, checkpoints.json, state.json) into its
// type, and fails the test on any that does not parse.
func (s *sandbox) checkJournals() {
	s.t.Helper()
	tasks, _ := filepath.Glob(filepath.Join(s.dir, ".nudgethis", "tasks", "*.json"))
	for _, p := range tasks {
		var t nudge.Task
		if err := journal.Read(p, &t); err != nil {
			s.t.Fatalf("task record: %v", err)
		}
		if t.ID+".json" != filepath.Base(p) {
			s.t.Fatalf("%s holds the record of %q", p, t.ID)
		}
	}
	var saves []nudge.SaveEntry
	if err := journal.Read(filepath.Join(s.dir, ".nudgethis", "saves.json"), &saves); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.t.Fatalf("saves.json: %v", err)
	}
	// checkpoints.json as every reader reads it: an append in place that
	// a crash cut short reads as the version before it (the next writer
	// puts that version back on disk).
	var entries []autodev.Entry
	cp := filepath.Join(s.dir, ".autodev", "checkpoints.json")
	if data, err := journal.ReadAppendable(cp); err == nil {
		if err := journal.Decode(cp, data, &entries); err != nil {
			s.t.Fatalf("checkpoints.json: %v", err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		s.t.Fatalf("checkpoints.json: %v", err)
	}
	var st autodev.State
	if err := journal.Read(filepath.Join(s.dir, ".autodev", "state.json"), &st); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.t.Fatalf("state.json: %v", err)
	}
}

// task reads task id's record.
func (s *sandbox) task(id string) nudge.Task {
	s.t.Helper()
	var t nudge.Task
	if err := journal.Read(filepath.Join(s.dir, ".nudgethis", "tasks", id+".json"), &t); err != nil {
		s.t.Fatal(err)
	}
	return t
}

// checkpoints reads .autodev/checkpoints.json (empty when missing).
func (s *sandbox) checkpoints() []autodev.Entry {
	s.t.Helper()
	// As every reader reads it (see checkJournals).
	var entries []autodev.Entry
	cp := filepath.Join(s.dir, ".autodev", "checkpoints.json")
	data, err := journal.ReadAppendable(cp)
	if err == nil {
		err = journal.Decode(cp, data, &entries)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.t.Fatal(err)
	}
	return entries
}

// checkPinned fails unless every checkpoint entry has a distinct id and
// refs/autodev/checkpoints/<id> points at its commit.
func (s *sandbox) checkPinned(entries []autodev.Entry) {
	s.t.Helper()
	ids := map[string]bool{}
	for _, e := range entries {
		if ids[e.ID] {
			s.t.Fatalf("checkpoint id %s appears twice in the journal", e.ID)
		}
		ids[e.ID] = true
		got, err := s.tryGit("rev-parse", "--verify", "-q", "refs/autodev/checkpoints/"+e.ID)
		if err != nil || got != e.Commit {
			s.t.Fatalf("refs/autodev/checkpoints/%s is %q (%v), the journal says %s", e.ID, got, err, e.Commit)
		}
	}
}

// recovery is `git nudge recover ID --json`.
func (s *sandbox) recovery(id string) apply.Recovery {
	s.t.Helper()
	r := s.ok(s.nudge("recover", id, "--json"), "recover "+id)
	var rep apply.Recovery
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		s.t.Fatalf("recover --json: %v\n%s", err, r.stdout)
	}
	return rep
}

// leftovers lists the temp files an interrupted write may leave.
func leftovers(pic map[string]*spec) []string {
	var out []string
	for p := range pic {
		if strings.HasPrefix(filepath.Base(p), ".nudge-") && strings.HasSuffix(p, ".tmp") {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// blobOf is the content of path in commit, or nil when absent.
func (s *sandbox) blobOf(commit, path string) *spec {
	s.t.Helper()
	out, err := s.tryGit("ls-tree", "-z", "--full-tree", commit, "--", path)
	if err != nil {
		s.t.Fatal(err)
	}
	meta, _, ok := strings.Cut(strings.TrimSuffix(out, "\x00"), "\t")
	if !ok {
		return nil
	}
	f := strings.Fields(meta)
	raw, err := s.command(s.dir, "git", []string{"cat-file", "blob", f[2]}).Output()
	if err != nil {
		s.t.Fatal(err)
	}
	return &spec{data: string(raw), exec: f[0] == "100755"}
}

// treeFiles is every file of commit's tree as specs.
func (s *sandbox) treeFiles(commit string) map[string]*spec {
	s.t.Helper()
	out := map[string]*spec{}
	for _, l := range strings.Split(s.git("ls-tree", "-r", "-z", "--full-tree", commit), "\x00") {
		meta, p, ok := strings.Cut(l, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		c := s.command(s.dir, "git", []string{"cat-file", "blob", f[2]})
		raw, err := c.Output()
		if err != nil {
			s.t.Fatal(err)
		}
		out[p] = &spec{data: string(raw), exec: f[0] == "100755"}
	}
	return out
}

// readFile is the content of path ("" when absent).
func readFile(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return string(data)
}
