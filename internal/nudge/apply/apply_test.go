package apply

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/snapshot"
	"github.com/nudgethis/git-nudge/internal/testutil/testrepo"
)

var ctx = context.Background()

// baseRepo is a repository with a varied first commit, checked out.
func baseRepo(t *testing.T, config ...string) (*repo, string) {
	r := newRepo(t, config...)
	return r, r.CommitBase()
}

// patchChanges is the result used by the round-trip tests.
var patchChanges = map[string]testrepo.Change{
	"mod.txt":                 testrepo.Put("one\n2\nthree\n"),
	"gone/deep/del.txt":       testrepo.Del(),
	"tool.sh":                 testrepo.PutExec("#!/bin/sh\necho hi\n"), // mode only
	"img.bin":                 testrepo.Put("\x00\x01\x03\xff"),
	"with space/ünï cödé.txt": testrepo.Put("unicode changed\n"),
	"-dash.txt":               testrepo.Del(),
	"nl\nname.txt":            testrepo.PutExec("newline name, changed\n"),
	"new/dir/ädded file.txt":  testrepo.Put("added\r\nwith crlf\r\n"),
	"new/exec.sh":             testrepo.PutExec("#!/bin/sh\n"),
	"empty.txt":               testrepo.Put("now has content\n"),
	"made-empty.txt":          testrepo.Put(""),
}

func TestApplyUndoRoundTrip(t *testing.T) {
	t.Parallel()
	r, base := baseRepo(t)
	result := r.CommitOn(base, patchChanges)
	r.mkTask("t1", base, result)
	// Unrelated local work that must survive both directions.
	r.Write("unrelated.txt", "mine, edited\n", 0o644)
	r.Write("untracked/notes.md", "keep me\n", 0o600)
	idx := r.IndexSig()
	headBefore := r.Rev("HEAD")
	before := r.Tree()

	out, err := Run(ctx, r.workspace(), "t1", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if out.State != nudge.StateApplied || len(out.Files) != len(patchChanges) {
		t.Fatalf("outcome %+v", out)
	}
	for p, c := range patchChanges {
		if c.Deleted {
			if !r.Absent(p) {
				t.Errorf("%q not removed", p)
			}
			continue
		}
		got, exec := r.Read(p)
		if got != c.Content || exec != (c.Mode == nudge.ModeExec) {
			t.Errorf("%q = %q exec=%v, want %q mode %s", p, got, exec, c.Content, c.Mode)
		}
	}
	if !r.Absent("gone") {
		t.Errorf("folder gone/ left behind after its only file was deleted")
	}
	// git itself sees exactly the patch as unstaged changes on top of HEAD.
	if got := r.Rev("HEAD"); got != headBefore {
		t.Errorf("HEAD moved")
	}
	if r.IndexSig() != idx {
		t.Errorf("the index changed")
	}
	for p, c := range patchChanges {
		if !c.Deleted {
			if got, want := strings.TrimSpace(r.Git("hash-object", "--", p)), r.Rev(result+":"+p); got != want {
				t.Errorf("git hash-object %q = %s, want the result's blob %s", p, got, want)
			}
		}
	}
	if got, _ := r.Read("unrelated.txt"); got != "mine, edited\n" {
		t.Errorf("unrelated edit lost: %q", got)
	}
	rec := r.load("t1")
	if rec.State != nudge.StateApplied || rec.AppliedAt == nil || rec.Undo == nil || len(rec.Undo.Before) != len(patchChanges) || nudge.Deref(rec.Undo.Branch) != "refs/heads/main" || nudge.Deref(rec.Undo.Head) != base {
		t.Fatalf("record after apply: %+v undo %+v", rec, rec.Undo)
	}
	applied := r.Tree()

	out, err = Undo(ctx, r.workspace(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	if out.State != nudge.StateUndone {
		t.Fatalf("undo outcome %+v", out)
	}
	if d := testrepo.DiffTrees(before, r.Tree()); d != "" {
		t.Errorf("undo did not restore the work tree exactly:\n%s", d)
	}
	if r.IndexSig() != idx {
		t.Errorf("the index changed")
	}
	if rec := r.load("t1"); rec.State != nudge.StateUndone || rec.UndoneAt == nil {
		t.Errorf("record after undo: %+v", rec)
	}

	// An undone task applies again, to the same bytes and modes.
	if _, err := Run(ctx, r.workspace(), "t1", Options{}); err != nil {
		t.Fatal(err)
	}
	if d := testrepo.DiffTrees(applied, r.Tree()); d != "" {
		t.Errorf("second apply differs from the first:\n%s", d)
	}
	if rec := r.load("t1"); rec.UndoneAt != nil {
		t.Errorf("undone_at kept after a new apply")
	}
}

// refusal asserts err is a RefusedError mentioning every want.
func refusal(t *testing.T, err error, want ...string) *nudge.RefusedError {
	t.Helper()
	var re *nudge.RefusedError
	if !errors.As(err, &re) {
		t.Fatalf("want a refusal, got %v", err)
	}
	msg := re.Error()
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("refusal does not mention %q:\n%s", w, msg)
		}
	}
	return re
}

func TestApplyRefusals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		changes map[string]testrepo.Change
		setup   func(r *repo, task *nudge.Task)
		want    []string
	}{
		{name: "edited", changes: map[string]testrepo.Change{"mod.txt": testrepo.Put("x\n")},
			setup: func(r *repo, _ *nudge.Task) { r.Write("mod.txt", "my edit\n", 0o644) },
			want:  []string{"mod.txt was edited since the snapshot", "Your edits were kept", "git nudge apply --merge", "git nudge refresh", "take a new snapshot from the current workspace and run the task again"}},
		{name: "deleted", changes: map[string]testrepo.Change{"mod.txt": testrepo.Put("x\n")},
			setup: func(r *repo, _ *nudge.Task) { os.Remove(filepath.Join(r.Dir, "mod.txt")) },
			want:  []string{"mod.txt was deleted since the snapshot"}},
		{name: "created", changes: map[string]testrepo.Change{"new.txt": testrepo.Put("x\n")},
			setup: func(r *repo, _ *nudge.Task) { r.Write("new.txt", "mine\n", 0o644) },
			want:  []string{"new.txt exists in the work tree but not in the snapshot"}},
		{name: "mode", changes: map[string]testrepo.Change{"mod.txt": testrepo.Put("x\n")},
			setup: func(r *repo, _ *nudge.Task) { os.Chmod(filepath.Join(r.Dir, "mod.txt"), 0o755) },
			want:  []string{"mod.txt's executable bit changed since the snapshot"}},
		{name: "folder now", changes: map[string]testrepo.Change{"new": testrepo.Put("x\n")},
			setup: func(r *repo, _ *nudge.Task) { r.Write("new/mine.txt", "mine\n", 0o644) },
			want:  []string{"new cannot be written: a folder is there that the patch does not empty"}},
		{name: "branch", changes: map[string]testrepo.Change{"mod.txt": testrepo.Put("x\n")},
			setup: func(r *repo, _ *nudge.Task) { r.Git("switch", "-q", "-c", "other") },
			want:  []string{"t1 was snapshotted on branch main, but the current branch is other", "git switch main"}},
		{name: "detached elsewhere", changes: map[string]testrepo.Change{"mod.txt": testrepo.Put("x\n")},
			setup: func(r *repo, task *nudge.Task) {
				r.Git("switch", "-q", "--detach")
				task.Branch = nil
				r.workspace().Save(task)
				r.Git("commit", "-q", "--allow-empty", "-m", "moved")
			},
			want: []string{"on a detached HEAD at", "but HEAD is now at"}},
		{name: "applied already", changes: map[string]testrepo.Change{"mod.txt": testrepo.Put("x\n")},
			setup: func(r *repo, task *nudge.Task) { task.State = nudge.StateApplied; r.workspace().Save(task) },
			want:  []string{"t1 is already applied", "git nudge undo t1"}},
		{name: "recovery required", changes: map[string]testrepo.Change{"mod.txt": testrepo.Put("x\n")},
			setup: func(r *repo, task *nudge.Task) { task.State = nudge.StateRecoveryRequired; r.workspace().Save(task) },
			want:  []string{"t1 needs recovery", "git nudge recover t1"}},
		{name: "failed", changes: map[string]testrepo.Change{"mod.txt": testrepo.Put("x\n")},
			setup: func(r *repo, task *nudge.Task) { task.State = nudge.StateFailed; r.workspace().Save(task) },
			want:  []string{"t1 failed", "git nudge capture t1"}},
		{name: "running", changes: map[string]testrepo.Change{"mod.txt": testrepo.Put("x\n")},
			setup: func(r *repo, task *nudge.Task) { task.State = nudge.StatePrepared; r.workspace().Save(task) },
			want:  []string{"t1 is prepared: it has no result to apply yet"}},
		{name: "protected", changes: map[string]testrepo.Change{".env": testrepo.Put("SECRET=1\n"), "sub/.env": testrepo.Put("x\n"), "keys/id.pem": testrepo.Put("k\n"), "conf/prod/db.yml": testrepo.Put("p\n")},
			setup: func(r *repo, _ *nudge.Task) {
				r.Git("config", "--add", "nudge.protect", "*.pem")
				r.Git("config", "--add", "nudge.protect", "conf/prod/")
			},
			want: []string{".env is a protected path", "sub/.env is a protected path", "keys/id.pem is a protected path", "conf/prod/db.yml is a protected path"}},
		{name: "symlink", changes: map[string]testrepo.Change{"link": {Content: "mod.txt", Mode: "120000"}},
			want: []string{"link is a symlink in the snapshot or the result; changed symlinks need manual handling"}},
		{name: "gitlink", changes: map[string]testrepo.Change{"sub": {Content: strings.Repeat("1", 40), Mode: "160000"}},
			want: []string{"sub is a submodule"}},
		{name: "too big", changes: map[string]testrepo.Change{"big.bin": testrepo.Put(strings.Repeat("x", nudge.MaxFileSize+1))},
			want: []string{"the new content of big.bin is 16.0 MiB, over the 16 MiB limit"}},
		{name: "symlinked folder to outside", changes: map[string]testrepo.Change{"out/new.txt": testrepo.Put("x\n"), "gone/deep/del.txt": testrepo.Del()},
			setup: func(r *repo, _ *nudge.Task) {
				outside := filepath.Join(filepath.Dir(r.Dir), "outside-"+filepath.Base(r.Dir))
				os.MkdirAll(outside, 0o755)
				os.Symlink(outside, filepath.Join(r.Dir, "out"))
				os.RemoveAll(filepath.Join(r.Dir, "gone"))
				os.Symlink(outside, filepath.Join(r.Dir, "gone"))
			},
			want: []string{"out/new.txt cannot be written: out is a symlink, not a folder", "gone/deep/del.txt cannot be reached: gone is now a symlink"}},
		{name: "missing objects", changes: map[string]testrepo.Change{"mod.txt": testrepo.Put("x\n")},
			setup: func(r *repo, task *nudge.Task) {
				task.Files[0].NewBlob = nudge.StrPtr(strings.Repeat("ab", 20))
				task.Files[0].OldBlob = nudge.StrPtr(strings.Repeat("cd", 20))
				r.workspace().Save(task)
			},
			want: []string{"the new content of mod.txt is missing", "the snapshot's version of mod.txt is missing"}},
		{name: "several at once", changes: map[string]testrepo.Change{"mod.txt": testrepo.Put("x\n"), ".env": testrepo.Put("y\n"), "new.txt": testrepo.Put("n\n")},
			setup: func(r *repo, _ *nudge.Task) { r.Write("mod.txt", "mine\n", 0o644); r.Write("new.txt", "mine\n", 0o644) },
			want:  []string{"mod.txt was edited", ".env is a protected path", "new.txt exists in the work tree but not in the snapshot"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, base := baseRepo(t)
			result := r.CommitOn(base, tc.changes)
			task := r.mkTask("t1", base, result)
			if tc.setup != nil {
				tc.setup(r, task)
			}
			before, idx, rec := r.Tree(), r.IndexSig(), r.load("t1")
			_, err := Run(ctx, r.workspace(), "t1", Options{})
			refusal(t, err, tc.want...)
			if d := testrepo.DiffTrees(before, r.Tree()); d != "" {
				t.Errorf("a refused apply changed files:\n%s", d)
			}
			if r.IndexSig() != idx {
				t.Errorf("a refused apply changed the index")
			}
			if got := r.load("t1"); got.State != rec.State || got.Undo != nil {
				t.Errorf("a refused apply changed the record: %s", got.State)
			}
		})
	}
}

func TestApplyEmptyPatchRefused(t *testing.T) {
	t.Parallel()
	r, base := baseRepo(t)
	r.mkTask("t1", base, base)
	_, err := Run(ctx, r.workspace(), "t1", Options{})
	refusal(t, err, "changes no files")
}

func TestUndoRefusals(t *testing.T) {
	t.Parallel()
	changes := map[string]testrepo.Change{"mod.txt": testrepo.Put("applied\n"), "gone/deep/del.txt": testrepo.Del(), "added.txt": testrepo.Put("added\n"), "tool.sh": testrepo.Put("#!/bin/sh\necho applied\n")}
	cases := []struct {
		name  string
		setup func(r *repo, task *nudge.Task)
		want  []string
	}{
		{"later edit", func(r *repo, _ *nudge.Task) { r.Write("mod.txt", "later\n", 0o644) }, []string{"mod.txt was edited since t1 was applied", "Your later changes were kept"}},
		{"added file removed", func(r *repo, _ *nudge.Task) { os.Remove(filepath.Join(r.Dir, "added.txt")) }, []string{"added.txt was deleted since t1 was applied"}},
		{"deleted file re-added", func(r *repo, _ *nudge.Task) { r.Write("gone/deep/del.txt", "back\n", 0o644) }, []string{"gone/deep/del.txt was created since t1 was applied"}},
		{"mode change", func(r *repo, _ *nudge.Task) { os.Chmod(filepath.Join(r.Dir, "tool.sh"), 0o755) }, []string{"tool.sh's executable bit changed since t1 was applied"}},
		{"other branch", func(r *repo, _ *nudge.Task) { r.Git("switch", "-q", "-c", "elsewhere") }, []string{"t1 was applied on branch main, but the current branch is elsewhere"}},
		{"saved", func(r *repo, task *nudge.Task) {
			task.State, task.SavedIn = nudge.StateSaved, nudge.StrPtr("0123456789abcdef0123456789abcdef01234567")
			r.workspace().Save(task)
		}, []string{"part of the saved version 0123456789ab", "git revert 0123456789abcdef0123456789abcdef01234567"}},
		{"saves journal", func(r *repo, task *nudge.Task) {
			os.WriteFile(filepath.Join(r.workspace().Dir, "saves.json"), []byte(`[{"id":"s1","commit":"abcdefabcdefabcdefabcdefabcdefabcdefabcd","parent":null,"branch":"refs/heads/main","tasks":["t1"],"paths":["mod.txt"],"state":"saved","time":"2026-01-02T03:04:05Z"}]`), 0o644)
		}, []string{"saved version abcdefabcdef", "git revert abcdefabcdefabcdefabcdefabcdefabcdefabcd"}},
		{"incomplete undo record", func(r *repo, task *nudge.Task) {
			task.Undo.After = task.Undo.After[:1]
			r.workspace().Save(task)
		}, []string{"no complete undo record", "manual handling"}},
		{"not applied", func(r *repo, task *nudge.Task) { task.State = nudge.StateReady; r.workspace().Save(task) }, []string{"t1 is not applied (it is ready)"}},
		{"recovery", func(r *repo, task *nudge.Task) { task.State = nudge.StateRecoveryRequired; r.workspace().Save(task) }, []string{"t1 needs recovery", "git nudge recover t1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, base := baseRepo(t)
			r.mkTask("t1", base, r.CommitOn(base, changes))
			if _, err := Run(ctx, r.workspace(), "t1", Options{}); err != nil {
				t.Fatal(err)
			}
			tc.setup(r, r.load("t1"))
			before, idx, rec := r.Tree(), r.IndexSig(), r.load("t1")
			_, err := Undo(ctx, r.workspace(), "t1")
			refusal(t, err, tc.want...)
			if d := testrepo.DiffTrees(before, r.Tree()); d != "" {
				t.Errorf("a refused undo changed files:\n%s", d)
			}
			if r.IndexSig() != idx {
				t.Errorf("a refused undo changed the index")
			}
			if got := r.load("t1"); got.State != rec.State {
				t.Errorf("a refused undo changed the state to %s", got.State)
			}
		})
	}
}

func TestApplyAutoCRLF(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.Write("lf.txt", "a\nb\n", 0o644)
	r.Write("committed-crlf.txt", "x\r\ny\r\n", 0o644)
	r.Write("bin.dat", "\x00\r\n", 0o644)
	base := r.CommitAll("base")
	r.Git("config", "core.autocrlf", "true")
	// Check the files out again as git would with autocrlf.
	for _, p := range []string{"lf.txt", "committed-crlf.txt", "bin.dat"} {
		os.Remove(filepath.Join(r.Dir, p))
	}
	r.Git("checkout", "--", ".")
	if got, _ := r.Read("lf.txt"); got != "a\r\nb\r\n" {
		t.Fatalf("setup: autocrlf checkout gave %q", got)
	}
	if s := r.Git("status", "--porcelain"); s != "" {
		t.Fatalf("setup: git sees changes: %s", s)
	}
	result := r.CommitOn(base, map[string]testrepo.Change{
		"lf.txt":             testrepo.Put("a\nb\nc\n"),
		"committed-crlf.txt": testrepo.Put("x\r\ny\r\nz\r\n"),
		"new.txt":            testrepo.Put("n1\nn2\n"),
		"bin.dat":            testrepo.Put("\x00\r\n\x01"),
	})
	r.mkTask("t1", base, result)
	before, idx := r.Tree(), r.IndexSig()
	if _, err := Run(ctx, r.workspace(), "t1", Options{}); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"lf.txt": "a\r\nb\r\nc\r\n", "new.txt": "n1\r\nn2\r\n", "committed-crlf.txt": "x\r\ny\r\nz\r\n", "bin.dat": "\x00\r\n\x01"} {
		if got, _ := r.Read(p); got != want {
			t.Errorf("%s = %q, want %q (as git checkout writes it)", p, got, want)
		}
		blob := strings.TrimSpace(r.Git("hash-object", "--", p))
		if p != "committed-crlf.txt" && blob != r.Rev(result+":"+p) {
			t.Errorf("%s hashes to %s, not the result's blob", p, blob)
		}
	}
	if r.IndexSig() != idx {
		t.Errorf("the index changed")
	}
	if _, err := Undo(ctx, r.workspace(), "t1"); err != nil {
		t.Fatal(err)
	}
	if d := testrepo.DiffTrees(before, r.Tree()); d != "" {
		t.Errorf("undo did not restore CRLF files exactly:\n%s", d)
	}
}

func TestApplyFileFolderSwaps(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.Write("bin", "a file named bin\n", 0o755)
	r.Write("lib/x.go", "package lib\n", 0o644)
	r.Write("lib/sub/y.go", "package sub\n", 0o644)
	base := r.CommitAll("base")
	result := r.CommitOn(base, map[string]testrepo.Change{
		"bin": testrepo.Del(), "bin/tool": testrepo.PutExec("#!/bin/sh\n"),
		"lib/x.go": testrepo.Del(), "lib/sub/y.go": testrepo.Del(), "lib": testrepo.Put("lib is a file now\n"),
	})
	r.mkTask("t1", base, result)
	before := r.Tree()
	if _, err := Run(ctx, r.workspace(), "t1", Options{}); err != nil {
		t.Fatal(err)
	}
	if got, exec := r.Read("bin/tool"); got != "#!/bin/sh\n" || !exec {
		t.Errorf("bin/tool = %q %v", got, exec)
	}
	if got, _ := r.Read("lib"); got != "lib is a file now\n" {
		t.Errorf("lib = %q", got)
	}
	if _, err := Undo(ctx, r.workspace(), "t1"); err != nil {
		t.Fatal(err)
	}
	if d := testrepo.DiffTrees(before, r.Tree()); d != "" {
		t.Errorf("undo did not restore:\n%s", d)
	}
}

func TestApplyDetachedAndUnborn(t *testing.T) {
	t.Parallel()
	r, base := baseRepo(t)
	r.Git("switch", "-q", "--detach")
	task := r.mkTask("t1", base, r.CommitOn(base, map[string]testrepo.Change{"mod.txt": testrepo.Put("d\n")}))
	if task.Branch != nil {
		t.Fatalf("setup: branch %v", *task.Branch)
	}
	if _, err := Run(ctx, r.workspace(), "t1", Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Undo(ctx, r.workspace(), "t1"); err != nil {
		t.Fatal(err)
	}

	u := newRepo(t)
	u.Write("a.txt", "work in progress\n", 0o644)
	// Unborn branch: the snapshot is a parentless commit of the work tree.
	snap := u.CommitOn("", map[string]testrepo.Change{"a.txt": testrepo.Put("work in progress\n")})
	u.mkTask("t1", snap, u.CommitOn(snap, map[string]testrepo.Change{"b.txt": testrepo.Put("new\n")}))
	if _, err := Run(ctx, u.workspace(), "t1", Options{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := u.Read("b.txt"); got != "new\n" {
		t.Errorf("b.txt = %q", got)
	}
	if _, err := os.Stat(filepath.Join(u.Dir, ".git", "index")); err == nil {
		t.Errorf("an index appeared on the unborn branch")
	}
}

func TestRecoverInterruptedApply(t *testing.T) {
	t.Parallel()
	r, base := baseRepo(t)
	result := r.CommitOn(base, map[string]testrepo.Change{"mod.txt": testrepo.Put("after\n"), "added.txt": testrepo.Put("added\n"), "tool.sh": testrepo.Put("edited by the task\n"), "empty.txt": testrepo.Del()})
	task := r.mkTask("t1", base, result)
	// A record left in applying by a process that died part-way: mod.txt
	// already written, added.txt not yet, tool.sh then edited by someone
	// else, plus a temp file of the interrupted write.
	undo := &nudge.Undo{Branch: task.Branch, Head: task.Head}
	for _, f := range task.Files {
		undo.Before = append(undo.Before, normState(f.Path, f.OldMode, f.OldBlob))
		undo.After = append(undo.After, normState(f.Path, f.NewMode, f.NewBlob))
	}
	task.State, task.Undo = nudge.StateApplying, undo
	if err := r.workspace().Save(task); err != nil {
		t.Fatal(err)
	}
	r.Write("mod.txt", "after\n", 0o644)
	r.Write("tool.sh", "someone else\n", 0o644)
	r.Write(".nudge-0123456789abcdef.tmp", "partial", 0o644)
	before := r.Tree()

	rep, err := Recover(ctx, r.workspace(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	if rep.State != nudge.StateRecoveryRequired || rep.Error == nil {
		t.Errorf("recover did not report the interrupted record: %+v", rep)
	}
	got := map[string]string{}
	for _, f := range rep.Files {
		got[f.Path] = f.Matches
	}
	want := map[string]string{"mod.txt": "after", "added.txt": "before", "tool.sh": "neither", "empty.txt": "before"}
	if d := testrepo.DiffTrees(want, got); d != "" {
		t.Errorf("recover matches:\n%s", d)
	}
	if len(rep.Leftovers) != 1 || rep.Leftovers[0] != ".nudge-0123456789abcdef.tmp" {
		t.Errorf("leftovers %v", rep.Leftovers)
	}
	if d := testrepo.DiffTrees(before, r.Tree()); d != "" {
		t.Errorf("recover changed files:\n%s", d)
	}
	if rec := r.load("t1"); rec.State != nudge.StateRecoveryRequired || rec.Undo == nil {
		t.Errorf("record not kept: %+v", rec)
	}
	// Never retried or undone automatically.
	_, err = Run(ctx, r.workspace(), "t1", Options{})
	refusal(t, err, "needs recovery")
	_, err = Undo(ctx, r.workspace(), "t1")
	refusal(t, err, "needs recovery")
	if d := testrepo.DiffTrees(before, r.Tree()); d != "" {
		t.Errorf("a refused command changed files:\n%s", d)
	}
}

func TestRecoverWithoutUndoRecord(t *testing.T) {
	t.Parallel()
	r, base := baseRepo(t)
	r.mkTask("t1", base, r.CommitOn(base, map[string]testrepo.Change{"mod.txt": testrepo.Put("x\n")}))
	_, err := Recover(ctx, r.workspace(), "t1")
	refusal(t, err, "no complete undo record")
}

func TestProtectedPaths(t *testing.T) {
	t.Parallel()
	pats := []string{"*.pem", "/top-only.txt", "conf/prod/", "secrets", "**/creds.json", "# comment", ""}
	for p, want := range map[string]bool{
		".env": true, "a/b/.env": true, ".env.example": false, ".nudgethis/x": true, "sub/.nudgethis/x": false,
		"x/.git/config": true, ".GIT/x": true,
		"k.pem": true, "deep/k.pem": true, "top-only.txt": true, "sub/top-only.txt": false,
		"conf/prod/db.yml": true, "conf/prod": false, "conf/production/x": false,
		"secrets": true, "a/secrets/b": true, "x/creds.json": true, "ok.txt": false,
	} {
		if got := (snapshot.Options{Protect: pats}).Protected(p); got != want {
			t.Errorf("Protected(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestApplySHA256(t *testing.T) {
	t.Parallel()
	r := newRepoInit(t, []string{"init", "-q", "--object-format=sha256"})
	r.Write("a.txt", "a\n", 0o644)
	r.Write("gone.txt", "gone\n", 0o644)
	base := r.CommitAll("base")
	if len(base) != 64 {
		t.Fatalf("setup: not a SHA-256 repository (%s)", base)
	}
	r.mkTask("t1", base, r.CommitOn(base, map[string]testrepo.Change{"a.txt": testrepo.PutExec("b\n"), "gone.txt": testrepo.Del(), "n/new.txt": testrepo.Put("n\n")}))
	before := r.Tree()
	if _, err := Run(ctx, r.workspace(), "t1", Options{}); err != nil {
		t.Fatal(err)
	}
	if got, exec := r.Read("a.txt"); got != "b\n" || !exec {
		t.Errorf("a.txt = %q exec=%v", got, exec)
	}
	if rec := r.load("t1"); len(*rec.Undo.After[0].Blob) != 64 {
		t.Errorf("undo record blob ids are not SHA-256: %+v", rec.Undo.After[0])
	}
	if _, err := Undo(ctx, r.workspace(), "t1"); err != nil {
		t.Fatal(err)
	}
	if d := testrepo.DiffTrees(before, r.Tree()); d != "" {
		t.Errorf("undo:\n%s", d)
	}
}

// With core.fileMode=false git ignores the executable bit of work-tree
// files, and so do apply's checks; the bits apply writes still follow the
// recorded modes.
func TestApplyFileModeFalse(t *testing.T) {
	t.Parallel()
	r, base := baseRepo(t)
	r.Git("config", "core.fileMode", "false")
	r.mkTask("t1", base, r.CommitOn(base, map[string]testrepo.Change{"mod.txt": testrepo.Put("x\n"), "new.sh": testrepo.PutExec("#!/bin/sh\n")}))
	os.Chmod(filepath.Join(r.Dir, "mod.txt"), 0o755) // git does not see this
	if _, err := Run(ctx, r.workspace(), "t1", Options{}); err != nil {
		t.Fatal(err)
	}
	if _, exec := r.Read("new.sh"); !exec {
		t.Errorf("new.sh written without its executable bit")
	}
	os.Chmod(filepath.Join(r.Dir, "new.sh"), 0o644)
	if _, err := Undo(ctx, r.workspace(), "t1"); err != nil {
		t.Fatal(err)
	}
}

func TestRefusalQuotesOddNames(t *testing.T) {
	t.Parallel()
	r, base := baseRepo(t)
	r.mkTask("t1", base, r.CommitOn(base, map[string]testrepo.Change{"nl\nname.txt": testrepo.Put("x\n")}))
	r.Write("nl\nname.txt", "mine\n", 0o755)
	_, err := Run(ctx, r.workspace(), "t1", Options{})
	refusal(t, err, `"nl\nname.txt" was edited since the snapshot`)
}
