//go:build unix

package tests

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// Bad input: corrupt journals, unknown ids, ids that look like paths, task
// records and result commits that point outside the work tree or into
// .git, folders swapped for symlinks and files swapped for folders. Each
// is a clear error (exit 1, naming what is wrong) and changes nothing: not
// the files, not the journals, not the refs, HEAD or the index, and
// nothing outside the work tree.

// world is everything a command could change, as one comparable text: the
// work tree's files, the journals and memory.md, the refs, HEAD, the
// index, and the files of the folder beside the work tree ("outside").
func (s *sandbox) world() string {
	s.t.Helper()
	var b strings.Builder
	pic := s.picture()
	for _, k := range sortedKeys(pic) {
		fmt.Fprintf(&b, "%s %v\n", k, pic[k])
	}
	for _, d := range []string{".nudgethis", ".autodev"} {
		root := filepath.Join(s.dir, d)
		_ = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			if strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".md") {
				data, _ := os.ReadFile(p)
				fmt.Fprintf(&b, "%s %x\n", p, sha256.Sum256(data))
			}
			return nil
		})
	}
	b.WriteString(s.git("for-each-ref", "--format=%(refname) %(objectname)") + "\n")
	head, _ := s.tryGit("symbolic-ref", "-q", "HEAD")
	b.WriteString("HEAD " + head + " " + s.git("rev-parse", "HEAD") + "\n")
	b.WriteString("index " + s.indexSig() + "\n")
	out := pictureOf(s.t, s.outside())
	for _, k := range sortedKeys(out) {
		fmt.Fprintf(&b, "outside %s %v\n", k, out[k])
	}
	return b.String()
}

// outside is a folder beside the work tree, with a file in it.
func (s *sandbox) outside() string {
	dir := filepath.Join(filepath.Dir(s.dir), "outside")
	if _, err := os.Stat(dir); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			s.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "o.txt"), []byte("outside\n"), 0o644); err != nil {
			s.t.Fatal(err)
		}
	}
	return dir
}

// call is one command expected to fail cleanly.
type call struct {
	bin  string // git-nudge or git-autodev
	args []string
	want string // in stderr
}

func nudgeCall(want string, args ...string) call   { return call{"git-nudge", args, want} }
func autodevCall(want string, args ...string) call { return call{"git-autodev", args, want} }

// refuseAll runs every call and checks each exits 1 with its message,
// changing nothing at all.
func (s *sandbox) refuseAll(calls ...call) {
	s.t.Helper()
	before := s.world()
	for _, c := range calls {
		r := s.runIn(s.dir, c.bin, c.args)
		if os.Getenv("CRASH_DEBUG") != "" {
			s.t.Logf("%s %q -> %d: %s", c.bin, c.args, r.code, r.stderr)
		}
		if r.code != 1 || !strings.Contains(r.stderr, c.want) {
			s.t.Errorf("%s %q: want exit 1 and %q in stderr; got %s", c.bin, c.args, c.want, r)
		}
		if after := s.world(); after != before {
			s.t.Fatalf("%s %q changed something:\n%s", c.bin, c.args, lineDiff(before, after))
		}
	}
}

func lineDiff(a, b string) string {
	in := map[string]bool{}
	for _, l := range strings.Split(a, "\n") {
		in[l] = true
	}
	var out []string
	for _, l := range strings.Split(b, "\n") {
		if !in[l] {
			out = append(out, "+ "+l)
		}
	}
	in = map[string]bool{}
	for _, l := range strings.Split(b, "\n") {
		in[l] = true
	}
	for _, l := range strings.Split(a, "\n") {
		if !in[l] {
			out = append(out, "- "+l)
		}
	}
	return strings.Join(out, "\n")
}

// editTask rewrites task id's record through fn.
func (s *sandbox) editTask(id string, fn func(t *nudge.Task)) {
	s.t.Helper()
	path := filepath.Join(s.dir, ".nudgethis", "tasks", id+".json")
	var t nudge.Task
	if err := journal.Read(path, &t); err != nil {
		s.t.Fatal(err)
	}
	fn(&t)
	if err := journal.Write(path, t); err != nil {
		s.t.Fatal(err)
	}
}

func strp(s string) *string { return &s }

func TestBadJournals(t *testing.T) {
	for _, tc := range []struct {
		name, file string // file relative to the work tree
		content    string
		applied    bool // apply t1 before corrupting
		calls      func(base string) []call
	}{
		{"task truncated", ".nudgethis/tasks/t1.json", `{"version": 1, "id": "t1", "sta`, false, func(base string) []call {
			return []call{
				nudgeCall(base+" is corrupt", "apply", "t1"), nudgeCall(base+" is corrupt", "undo", "t1"),
				nudgeCall(base+" is corrupt", "recover", "t1"), nudgeCall(base+" is corrupt", "save"),
			}
		}},
		{"task of the wrong shape", ".nudgethis/tasks/t1.json", `{"id": 7, "files": "x"}`, false, func(base string) []call {
			return []call{nudgeCall(base+" is corrupt", "apply", "t1"), nudgeCall(base+" is corrupt", "save", "t1")}
		}},
		{"task of another id", ".nudgethis/tasks/t1.json", `{"version": 1, "id": "t2", "state": "ready"}`, false, func(base string) []call {
			return []call{nudgeCall(base+" is corrupt", "apply", "t1"), nudgeCall(base+" is corrupt", "recover", "t1")}
		}},
		{"saves truncated", ".nudgethis/saves.json", `[{"id": "s1", "commit": `, true, func(base string) []call {
			return []call{nudgeCall(base+" is corrupt", "save"), nudgeCall(base+" is corrupt", "undo", "t1")}
		}},
		{"checkpoints truncated", ".autodev/checkpoints.json", `[{"id": "c1"`, false, func(base string) []call {
			return []call{
				autodevCall(base+" is corrupt", "checkpoint", "-m", "x"), autodevCall(base+" is corrupt", "restore"),
				autodevCall(base+" is corrupt", "restore", "c1"), autodevCall(base+" is corrupt", "status"),
				autodevCall(base+" is corrupt", "restore", "--rebuild"),
			}
		}},
		{"checkpoints not an array", ".autodev/checkpoints.json", `{"id": "c1"}`, false, func(base string) []call {
			return []call{autodevCall(base+" is corrupt", "checkpoint"), autodevCall(base+" is corrupt", "restore")}
		}},
		{"state truncated", ".autodev/state.json", `{"status": "idle", "pid`, false, func(base string) []call {
			return []call{
				autodevCall(base+" is corrupt", "restore", "c1"), autodevCall(base+" is corrupt", "park"),
				autodevCall(base+" is corrupt", "status"),
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newNudgeFixture(t)
			s := f.s
			s.ok(s.autodev("checkpoint", "-m", "c1"), "checkpoint")
			s.write(map[string]*spec{"u.txt": file("edited after c1\n")})
			if tc.applied {
				s.ok(s.nudge("apply", "t1"), "apply")
			}
			path := filepath.Join(s.dir, tc.file)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			s.refuseAll(tc.calls(path)...)
			if got := readFile(t, path); got != tc.content {
				t.Fatalf("%s was rewritten: %q", tc.file, got)
			}
		})
	}
}

func TestBadIDs(t *testing.T) {
	t.Parallel()
	f := newNudgeFixture(t)
	s := f.s
	s.ok(s.autodev("checkpoint", "-m", "c1"), "checkpoint")
	s.ok(s.nudge("apply", "t1"), "apply") // undo and save then have something real to find
	// A decoy record where a path-like id would lead.
	decoy := filepath.Join(s.dir, ".nudgethis", "evil.json")
	if err := journal.Write(decoy, s.task("t1")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.outside(), "t9.json"), []byte(readFile(t, decoy)), 0o644); err != nil {
		t.Fatal(err)
	}
	var calls []call
	for _, id := range []string{"t99", "x", "../evil", "t1/../t1", "../../outside/t9", "/etc/passwd", "t1.json", "t1/", "..", "T1", "t01", "t1\n"} {
		want := fmt.Sprintf("unknown task %q", id)
		calls = append(calls,
			nudgeCall(want, "apply", id), nudgeCall(want, "undo", id), nudgeCall(want, "recover", id),
			nudgeCall(want, "save", id), nudgeCall(want, "show", id), nudgeCall(want, "diff", id),
			nudgeCall(want, "drop", id), nudgeCall(want, "capture", id), nudgeCall(want, "start", id),
			nudgeCall(want, "run", "--task", id, "--", "touch", "ran"))
	}
	for _, id := range []string{"c99", "../x", "c1/../c1", "/etc/passwd", "..", "refs/autodev/checkpoints/c1", "HEAD", "main"} {
		calls = append(calls, autodevCall("Restore failed: unknown checkpoint: "+id, "restore", id))
	}
	s.refuseAll(calls...)
}

// A task record edited so that a path of its patch or of its undo record
// leaves the work tree or enters .git: apply, undo, recover and save
// refuse and write nothing anywhere.
func TestBadTaskPaths(t *testing.T) {
	for _, p := range []string{"../outside/o.txt", "/etc/x", "sub/../../outside/o.txt", ".git/config", ".GIT/config", "git~1/config", "a.txt/", "", ".nudgethis/tasks/t1.json", ".env"} {
		t.Run(strings.NewReplacer("/", "_", ".", "dot").Replace(p), func(t *testing.T) {
			t.Parallel()
			f := newNudgeFixture(t)
			s := f.s
			s.outside()
			blob := s.gitEnv(nil, "evil\n", "hash-object", "-w", "--stdin")
			s.editTask("t1", func(t *nudge.Task) {
				t.Files[0].Path = p
				t.Files[0].NewBlob, t.Files[0].NewMode = strp(blob), strp("100644")
			})
			s.refuseAll(nudgeCall("cannot apply t1; nothing was changed", "apply", "t1"))

			// The same path in the undo record of an applied task.
			s.editTask("t1", func(t *nudge.Task) {
				t.State = nudge.StateApplied
				t.Undo = &nudge.Undo{Branch: t.Branch, Head: t.Head,
					Before: []nudge.PathState{{Path: p, Mode: strp("100644"), Blob: strp(blob)}},
					After:  []nudge.PathState{{Path: p}}}
			})
			s.refuseAll(
				nudgeCall("needs manual handling", "undo", "t1"),
				nudgeCall("a path save never commits", "save", "t1"),
			)
			if worktree.ValidPath(p) != nil {
				s.refuseAll(nudgeCall("unusable path", "recover", "t1"))
			}
		})
	}
}

// Result commits whose trees hold paths git itself would never check out
// (.git/config, ../x, .GIT, git~1), crafted with git mktree: apply refuses
// them before touching anything.
func TestBadResultTrees(t *testing.T) {
	t.Parallel()
	f := newNudgeFixture(t)
	s := f.s
	s.outside()
	blob := s.gitEnv(nil, "evil\n", "hash-object", "-w", "--stdin")
	sub := s.gitEnv(nil, fmt.Sprintf("100644 blob %s\tconfig\n100644 blob %s\to.txt\n", blob, blob), "mktree")
	headTree := s.git("rev-parse", "HEAD^{tree}")
	for i, entry := range []string{
		"040000 tree " + sub + "\t.git",
		"040000 tree " + sub + "\t..",
		"040000 tree " + sub + "\t.GIT",
		"100644 blob " + blob + "\tgit~1",
		"100644 blob " + blob + "\t.git",
	} {
		listing := s.git("ls-tree", headTree) + "\n" + entry + "\n"
		tree := s.gitEnv(nil, listing, "mktree")
		commit := s.git("commit-tree", tree, "-p", "HEAD", "-m", "evil")
		id := fmt.Sprintf("t%d", 10+i)
		s.mktask(id, "HEAD", commit)
		if len(s.task(id).Files) == 0 {
			t.Fatalf("%s: the crafted tree changes nothing", entry)
		}
		s.refuseAll(nudgeCall("cannot apply "+id+"; nothing was changed", "apply", id))
	}
}

// A folder of the patch replaced by a symlink to a look-alike outside the
// work tree, before apply and before undo; a file of the patch replaced by
// a folder, before apply and before undo: refused, nothing written.
func TestBadWorkTreeShapes(t *testing.T) {
	swapDir := func(s *sandbox, version map[string]*spec) {
		// "dir with space" holds a patch file: move it out, link to a copy.
		out := s.outside()
		look := filepath.Join(out, "lookalike")
		s.t.Helper()
		if err := os.MkdirAll(look, 0o755); err != nil {
			s.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(look, "ünï.txt"), []byte(version["dir with space/ünï.txt"].data), 0o644); err != nil {
			s.t.Fatal(err)
		}
		if err := os.RemoveAll(filepath.Join(s.dir, "dir with space")); err != nil {
			s.t.Fatal(err)
		}
		if err := os.Symlink(look, filepath.Join(s.dir, "dir with space")); err != nil {
			s.t.Fatal(err)
		}
	}
	swapFile := func(s *sandbox, _ map[string]*spec) {
		if err := os.Remove(filepath.Join(s.dir, "a.txt")); err != nil {
			s.t.Fatal(err)
		}
		s.write(map[string]*spec{"a.txt/inner.txt": file("a folder now\n")})
	}
	for _, tc := range []struct {
		name string
		undo bool
		swap func(*sandbox, map[string]*spec)
		want string
	}{
		{"symlinked folder before apply", false, swapDir, "dir with space is now a symlink"},
		{"symlinked folder before undo", true, swapDir, "dir with space is now a symlink"},
		{"file now a folder before apply", false, swapFile, "a.txt is now a folder"},
		{"file now a folder before undo", true, swapFile, "a.txt is now a folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newNudgeFixture(t)
			s := f.s
			verb, version := "apply", f.before
			if tc.undo {
				s.ok(s.nudge("apply", "t1"), "apply")
				verb, version = "undo", f.after
			}
			tc.swap(s, version)
			s.refuseAll(nudgeCall(tc.want, verb, "t1"))
			if st := s.task("t1").State; (st == nudge.StateApplied) != tc.undo {
				t.Fatalf("t1 is %s", st)
			}
		})
	}
}
