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
)

var ctx = context.Background()

// baseRepo is a repository with a varied first commit, checked out.
func baseRepo(t *testing.T, config ...string) (*repo, string) {
	r := newRepo(t, config...)
	r.write("mod.txt", "one\ntwo\n", 0o644)
	r.write("gone/deep/del.txt", "to be deleted\n", 0o644)
	r.write("tool.sh", "#!/bin/sh\necho hi\n", 0o644)
	r.write("img.bin", "\x00\x01\x02\xff\xfe", 0o644)
	r.write("with space/ünï cödé.txt", "unicode\n", 0o644)
	r.write("-dash.txt", "dash\n", 0o644)
	r.write("nl\nname.txt", "newline name\n", 0o755)
	r.write("empty.txt", "", 0o644)
	r.write("unrelated.txt", "mine\n", 0o644)
	return r, r.commitAll("base")
}

// patchChanges is the result used by the round-trip tests.
var patchChanges = map[string]change{
	"mod.txt":                 put("one\n2\nthree\n"),
	"gone/deep/del.txt":       del(),
	"tool.sh":                 putExec("#!/bin/sh\necho hi\n"), // mode only
	"img.bin":                 put("\x00\x01\x03\xff"),
	"with space/ünï cödé.txt": put("unicode changed\n"),
	"-dash.txt":               del(),
	"nl\nname.txt":            putExec("newline name, changed\n"),
	"new/dir/ädded file.txt":  put("added\r\nwith crlf\r\n"),
	"new/exec.sh":             putExec("#!/bin/sh\n"),
	"empty.txt":               put("now has content\n"),
	"made-empty.txt":          put(""),
}

func TestApplyUndoRoundTrip(t *testing.T) {
	t.Parallel()
	r, base := baseRepo(t)
	result := r.commitOn(base, patchChanges)
	r.mkTask("t1", base, result)
	// Unrelated local work that must survive both directions.
	r.write("unrelated.txt", "mine, edited\n", 0o644)
	r.write("untracked/notes.md", "keep me\n", 0o600)
	idx := r.indexSig()
	headBefore := r.rev("HEAD")
	before := r.tree()

	out, err := Apply(ctx, r.workspace(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	if out.State != nudge.StateApplied || len(out.Files) != len(patchChanges) {
		t.Fatalf("outcome %+v", out)
	}
	for p, c := range patchChanges {
		if c.deleted {
			if !r.absent(p) {
				t.Errorf("%q not removed", p)
			}
			continue
		}
		got, exec := r.read(p)
		if got != c.content || exec != (c.mode == nudge.ModeExec) {
			t.Errorf("%q = %q exec=%v, want %q mode %s", p, got, exec, c.content, c.mode)
		}
	}
	if !r.absent("gone") {
		t.Errorf("folder gone/ left behind after its only file was deleted")
	}
	// git itself sees exactly the patch as unstaged changes on top of HEAD.
	if got := r.rev("HEAD"); got != headBefore {
		t.Errorf("HEAD moved")
	}
	if r.indexSig() != idx {
		t.Errorf("the index changed")
	}
	for p, c := range patchChanges {
		if !c.deleted {
			if got, want := strings.TrimSpace(r.git("hash-object", "--", p)), r.rev(result+":"+p); got != want {
				t.Errorf("git hash-object %q = %s, want the result's blob %s", p, got, want)
			}
		}
	}
	if got, _ := r.read("unrelated.txt"); got != "mine, edited\n" {
		t.Errorf("unrelated edit lost: %q", got)
	}
	rec := r.load("t1")
	if rec.State != nudge.StateApplied || rec.AppliedAt == nil || rec.Undo == nil || len(rec.Undo.Before) != len(patchChanges) || nudge.Deref(rec.Undo.Branch) != "refs/heads/main" || nudge.Deref(rec.Undo.Head) != base {
		t.Fatalf("record after apply: %+v undo %+v", rec, rec.Undo)
	}
	applied := r.tree()

	out, err = Undo(ctx, r.workspace(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	if out.State != nudge.StateUndone {
		t.Fatalf("undo outcome %+v", out)
	}
	if d := diffTrees(before, r.tree()); d != "" {
		t.Errorf("undo did not restore the work tree exactly:\n%s", d)
	}
	if r.indexSig() != idx {
		t.Errorf("the index changed")
	}
	if rec := r.load("t1"); rec.State != nudge.StateUndone || rec.UndoneAt == nil {
		t.Errorf("record after undo: %+v", rec)
	}

	// An undone task applies again, to the same bytes and modes.
	if _, err := Apply(ctx, r.workspace(), "t1"); err != nil {
		t.Fatal(err)
	}
	if d := diffTrees(applied, r.tree()); d != "" {
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
		changes map[string]change
		setup   func(r *repo, task *nudge.Task)
		want    []string
	}{
		{name: "edited", changes: map[string]change{"mod.txt": put("x\n")},
			setup: func(r *repo, _ *nudge.Task) { r.write("mod.txt", "my edit\n", 0o644) },
			want:  []string{"mod.txt was edited since the snapshot", "Your edits were kept", "git nudge apply --merge", "git nudge refresh", "take a new snapshot from the current workspace and run the task again"}},
		{name: "deleted", changes: map[string]change{"mod.txt": put("x\n")},
			setup: func(r *repo, _ *nudge.Task) { os.Remove(filepath.Join(r.dir, "mod.txt")) },
			want:  []string{"mod.txt was deleted since the snapshot"}},
		{name: "created", changes: map[string]change{"new.txt": put("x\n")},
			setup: func(r *repo, _ *nudge.Task) { r.write("new.txt", "mine\n", 0o644) },
			want:  []string{"new.txt exists in the work tree but not in the snapshot"}},
		{name: "mode", changes: map[string]change{"mod.txt": put("x\n")},
			setup: func(r *repo, _ *nudge.Task) { os.Chmod(filepath.Join(r.dir, "mod.txt"), 0o755) },
			want:  []string{"mod.txt's executable bit changed since the snapshot"}},
		{name: "folder now", changes: map[string]change{"new": put("x\n")},
			setup: func(r *repo, _ *nudge.Task) { r.write("new/mine.txt", "mine\n", 0o644) },
			want:  []string{"new cannot be written: a folder is there that the patch does not empty"}},
		{name: "branch", changes: map[string]change{"mod.txt": put("x\n")},
			setup: func(r *repo, _ *nudge.Task) { r.git("switch", "-q", "-c", "other") },
			want:  []string{"t1 was snapshotted on branch main, but the current branch is other", "git switch main"}},
		{name: "detached elsewhere", changes: map[string]change{"mod.txt": put("x\n")},
			setup: func(r *repo, task *nudge.Task) {
				r.git("switch", "-q", "--detach")
				task.Branch = nil
				r.workspace().Save(task)
				r.git("commit", "-q", "--allow-empty", "-m", "moved")
			},
			want: []string{"on a detached HEAD at", "but HEAD is now at"}},
		{name: "applied already", changes: map[string]change{"mod.txt": put("x\n")},
			setup: func(r *repo, task *nudge.Task) { task.State = nudge.StateApplied; r.workspace().Save(task) },
			want:  []string{"t1 is already applied", "git nudge undo t1"}},
		{name: "recovery required", changes: map[string]change{"mod.txt": put("x\n")},
			setup: func(r *repo, task *nudge.Task) { task.State = nudge.StateRecoveryRequired; r.workspace().Save(task) },
			want:  []string{"t1 needs recovery", "git nudge recover t1"}},
		{name: "failed", changes: map[string]change{"mod.txt": put("x\n")},
			setup: func(r *repo, task *nudge.Task) { task.State = nudge.StateFailed; r.workspace().Save(task) },
			want:  []string{"t1 failed", "git nudge capture t1"}},
		{name: "running", changes: map[string]change{"mod.txt": put("x\n")},
			setup: func(r *repo, task *nudge.Task) { task.State = nudge.StatePrepared; r.workspace().Save(task) },
			want:  []string{"t1 is prepared: it has no result to apply yet"}},
		{name: "protected", changes: map[string]change{".env": put("SECRET=1\n"), "sub/.env": put("x\n"), "keys/id.pem": put("k\n"), "conf/prod/db.yml": put("p\n")},
			setup: func(r *repo, _ *nudge.Task) {
				r.git("config", "--add", "nudge.protect", "*.pem")
				r.git("config", "--add", "nudge.protect", "conf/prod/")
			},
			want: []string{".env is a protected path", "sub/.env is a protected path", "keys/id.pem is a protected path", "conf/prod/db.yml is a protected path"}},
		{name: "symlink", changes: map[string]change{"link": {content: "mod.txt", mode: "120000"}},
			want: []string{"link is a symlink in the snapshot or the result; changed symlinks need manual handling"}},
		{name: "gitlink", changes: map[string]change{"sub": {content: strings.Repeat("1", 40), mode: "160000"}},
			want: []string{"sub is a submodule"}},
		{name: "too big", changes: map[string]change{"big.bin": put(strings.Repeat("x", nudge.MaxFileSize+1))},
			want: []string{"the new content of big.bin is 16.0 MiB, over the 16 MiB limit"}},
		{name: "symlinked folder to outside", changes: map[string]change{"out/new.txt": put("x\n"), "gone/deep/del.txt": del()},
			setup: func(r *repo, _ *nudge.Task) {
				outside := filepath.Join(filepath.Dir(r.dir), "outside-"+filepath.Base(r.dir))
				os.MkdirAll(outside, 0o755)
				os.Symlink(outside, filepath.Join(r.dir, "out"))
				os.RemoveAll(filepath.Join(r.dir, "gone"))
				os.Symlink(outside, filepath.Join(r.dir, "gone"))
			},
			want: []string{"out/new.txt cannot be written: out is a symlink, not a folder", "gone/deep/del.txt cannot be reached: gone is now a symlink"}},
		{name: "missing objects", changes: map[string]change{"mod.txt": put("x\n")},
			setup: func(r *repo, task *nudge.Task) {
				task.Files[0].NewBlob = nudge.StrPtr(strings.Repeat("ab", 20))
				task.Files[0].OldBlob = nudge.StrPtr(strings.Repeat("cd", 20))
				r.workspace().Save(task)
			},
			want: []string{"the new content of mod.txt is missing", "the snapshot's version of mod.txt is missing"}},
		{name: "several at once", changes: map[string]change{"mod.txt": put("x\n"), ".env": put("y\n"), "new.txt": put("n\n")},
			setup: func(r *repo, _ *nudge.Task) { r.write("mod.txt", "mine\n", 0o644); r.write("new.txt", "mine\n", 0o644) },
			want:  []string{"mod.txt was edited", ".env is a protected path", "new.txt exists in the work tree but not in the snapshot"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, base := baseRepo(t)
			result := r.commitOn(base, tc.changes)
			task := r.mkTask("t1", base, result)
			if tc.setup != nil {
				tc.setup(r, task)
			}
			before, idx, rec := r.tree(), r.indexSig(), r.load("t1")
			_, err := Apply(ctx, r.workspace(), "t1")
			refusal(t, err, tc.want...)
			if d := diffTrees(before, r.tree()); d != "" {
				t.Errorf("a refused apply changed files:\n%s", d)
			}
			if r.indexSig() != idx {
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
	_, err := Apply(ctx, r.workspace(), "t1")
	refusal(t, err, "changes no files")
}

func TestUndoRefusals(t *testing.T) {
	t.Parallel()
	changes := map[string]change{"mod.txt": put("applied\n"), "gone/deep/del.txt": del(), "added.txt": put("added\n"), "tool.sh": put("#!/bin/sh\necho applied\n")}
	cases := []struct {
		name  string
		setup func(r *repo, task *nudge.Task)
		want  []string
	}{
		{"later edit", func(r *repo, _ *nudge.Task) { r.write("mod.txt", "later\n", 0o644) }, []string{"mod.txt was edited since t1 was applied", "Your later changes were kept"}},
		{"added file removed", func(r *repo, _ *nudge.Task) { os.Remove(filepath.Join(r.dir, "added.txt")) }, []string{"added.txt was deleted since t1 was applied"}},
		{"deleted file re-added", func(r *repo, _ *nudge.Task) { r.write("gone/deep/del.txt", "back\n", 0o644) }, []string{"gone/deep/del.txt was created since t1 was applied"}},
		{"mode change", func(r *repo, _ *nudge.Task) { os.Chmod(filepath.Join(r.dir, "tool.sh"), 0o755) }, []string{"tool.sh's executable bit changed since t1 was applied"}},
		{"other branch", func(r *repo, _ *nudge.Task) { r.git("switch", "-q", "-c", "elsewhere") }, []string{"t1 was applied on branch main, but the current branch is elsewhere"}},
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
			r.mkTask("t1", base, r.commitOn(base, changes))
			if _, err := Apply(ctx, r.workspace(), "t1"); err != nil {
				t.Fatal(err)
			}
			tc.setup(r, r.load("t1"))
			before, idx, rec := r.tree(), r.indexSig(), r.load("t1")
			_, err := Undo(ctx, r.workspace(), "t1")
			refusal(t, err, tc.want...)
			if d := diffTrees(before, r.tree()); d != "" {
				t.Errorf("a refused undo changed files:\n%s", d)
			}
			if r.indexSig() != idx {
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
	r.write("lf.txt", "a\nb\n", 0o644)
	r.write("committed-crlf.txt", "x\r\ny\r\n", 0o644)
	r.write("bin.dat", "\x00\r\n", 0o644)
	base := r.commitAll("base")
	r.git("config", "core.autocrlf", "true")
	// Check the files out again as git would with autocrlf.
	for _, p := range []string{"lf.txt", "committed-crlf.txt", "bin.dat"} {
		os.Remove(filepath.Join(r.dir, p))
	}
	r.git("checkout", "--", ".")
	if got, _ := r.read("lf.txt"); got != "a\r\nb\r\n" {
		t.Fatalf("setup: autocrlf checkout gave %q", got)
	}
	if s := r.git("status", "--porcelain"); s != "" {
		t.Fatalf("setup: git sees changes: %s", s)
	}
	result := r.commitOn(base, map[string]change{
		"lf.txt":             put("a\nb\nc\n"),
		"committed-crlf.txt": put("x\r\ny\r\nz\r\n"),
		"new.txt":            put("n1\nn2\n"),
		"bin.dat":            put("\x00\r\n\x01"),
	})
	r.mkTask("t1", base, result)
	before, idx := r.tree(), r.indexSig()
	if _, err := Apply(ctx, r.workspace(), "t1"); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"lf.txt": "a\r\nb\r\nc\r\n", "new.txt": "n1\r\nn2\r\n", "committed-crlf.txt": "x\r\ny\r\nz\r\n", "bin.dat": "\x00\r\n\x01"} {
		if got, _ := r.read(p); got != want {
			t.Errorf("%s = %q, want %q (as git checkout writes it)", p, got, want)
		}
		blob := strings.TrimSpace(r.git("hash-object", "--", p))
		if p != "committed-crlf.txt" && blob != r.rev(result+":"+p) {
			t.Errorf("%s hashes to %s, not the result's blob", p, blob)
		}
	}
	if r.indexSig() != idx {
		t.Errorf("the index changed")
	}
	if _, err := Undo(ctx, r.workspace(), "t1"); err != nil {
		t.Fatal(err)
	}
	if d := diffTrees(before, r.tree()); d != "" {
		t.Errorf("undo did not restore CRLF files exactly:\n%s", d)
	}
}

func TestApplyFileFolderSwaps(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.write("bin", "a file named bin\n", 0o755)
	r.write("lib/x.go", "package lib\n", 0o644)
	r.write("lib/sub/y.go", "package sub\n", 0o644)
	base := r.commitAll("base")
	result := r.commitOn(base, map[string]change{
		"bin": del(), "bin/tool": putExec("#!/bin/sh\n"),
		"lib/x.go": del(), "lib/sub/y.go": del(), "lib": put("lib is a file now\n"),
	})
	r.mkTask("t1", base, result)
	before := r.tree()
	if _, err := Apply(ctx, r.workspace(), "t1"); err != nil {
		t.Fatal(err)
	}
	if got, exec := r.read("bin/tool"); got != "#!/bin/sh\n" || !exec {
		t.Errorf("bin/tool = %q %v", got, exec)
	}
	if got, _ := r.read("lib"); got != "lib is a file now\n" {
		t.Errorf("lib = %q", got)
	}
	if _, err := Undo(ctx, r.workspace(), "t1"); err != nil {
		t.Fatal(err)
	}
	if d := diffTrees(before, r.tree()); d != "" {
		t.Errorf("undo did not restore:\n%s", d)
	}
}

func TestApplyDetachedAndUnborn(t *testing.T) {
	t.Parallel()
	r, base := baseRepo(t)
	r.git("switch", "-q", "--detach")
	task := r.mkTask("t1", base, r.commitOn(base, map[string]change{"mod.txt": put("d\n")}))
	if task.Branch != nil {
		t.Fatalf("setup: branch %v", *task.Branch)
	}
	if _, err := Apply(ctx, r.workspace(), "t1"); err != nil {
		t.Fatal(err)
	}
	if _, err := Undo(ctx, r.workspace(), "t1"); err != nil {
		t.Fatal(err)
	}

	u := newRepo(t)
	u.write("a.txt", "work in progress\n", 0o644)
	// Unborn branch: the snapshot is a parentless commit of the work tree.
	snap := u.commitOn("", map[string]change{"a.txt": put("work in progress\n")})
	u.mkTask("t1", snap, u.commitOn(snap, map[string]change{"b.txt": put("new\n")}))
	if _, err := Apply(ctx, u.workspace(), "t1"); err != nil {
		t.Fatal(err)
	}
	if got, _ := u.read("b.txt"); got != "new\n" {
		t.Errorf("b.txt = %q", got)
	}
	if _, err := os.Stat(filepath.Join(u.dir, ".git", "index")); err == nil {
		t.Errorf("an index appeared on the unborn branch")
	}
}

func TestRecoverInterruptedApply(t *testing.T) {
	t.Parallel()
	r, base := baseRepo(t)
	result := r.commitOn(base, map[string]change{"mod.txt": put("after\n"), "added.txt": put("added\n"), "tool.sh": put("edited by the task\n"), "empty.txt": del()})
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
	r.write("mod.txt", "after\n", 0o644)
	r.write("tool.sh", "someone else\n", 0o644)
	r.write(".nudge-0123456789abcdef.tmp", "partial", 0o644)
	before := r.tree()

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
	if d := diffTrees(want, got); d != "" {
		t.Errorf("recover matches:\n%s", d)
	}
	if len(rep.Leftovers) != 1 || rep.Leftovers[0] != ".nudge-0123456789abcdef.tmp" {
		t.Errorf("leftovers %v", rep.Leftovers)
	}
	if d := diffTrees(before, r.tree()); d != "" {
		t.Errorf("recover changed files:\n%s", d)
	}
	if rec := r.load("t1"); rec.State != nudge.StateRecoveryRequired || rec.Undo == nil {
		t.Errorf("record not kept: %+v", rec)
	}
	// Never retried or undone automatically.
	_, err = Apply(ctx, r.workspace(), "t1")
	refusal(t, err, "needs recovery")
	_, err = Undo(ctx, r.workspace(), "t1")
	refusal(t, err, "needs recovery")
	if d := diffTrees(before, r.tree()); d != "" {
		t.Errorf("a refused command changed files:\n%s", d)
	}
}

func TestRecoverWithoutUndoRecord(t *testing.T) {
	t.Parallel()
	r, base := baseRepo(t)
	r.mkTask("t1", base, r.commitOn(base, map[string]change{"mod.txt": put("x\n")}))
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
	r.write("a.txt", "a\n", 0o644)
	r.write("gone.txt", "gone\n", 0o644)
	base := r.commitAll("base")
	if len(base) != 64 {
		t.Fatalf("setup: not a SHA-256 repository (%s)", base)
	}
	r.mkTask("t1", base, r.commitOn(base, map[string]change{"a.txt": putExec("b\n"), "gone.txt": del(), "n/new.txt": put("n\n")}))
	before := r.tree()
	if _, err := Apply(ctx, r.workspace(), "t1"); err != nil {
		t.Fatal(err)
	}
	if got, exec := r.read("a.txt"); got != "b\n" || !exec {
		t.Errorf("a.txt = %q exec=%v", got, exec)
	}
	if rec := r.load("t1"); len(*rec.Undo.After[0].Blob) != 64 {
		t.Errorf("undo record blob ids are not SHA-256: %+v", rec.Undo.After[0])
	}
	if _, err := Undo(ctx, r.workspace(), "t1"); err != nil {
		t.Fatal(err)
	}
	if d := diffTrees(before, r.tree()); d != "" {
		t.Errorf("undo:\n%s", d)
	}
}

// With core.fileMode=false git ignores the executable bit of work-tree
// files, and so do apply's checks; the bits apply writes still follow the
// recorded modes.
func TestApplyFileModeFalse(t *testing.T) {
	t.Parallel()
	r, base := baseRepo(t)
	r.git("config", "core.fileMode", "false")
	r.mkTask("t1", base, r.commitOn(base, map[string]change{"mod.txt": put("x\n"), "new.sh": putExec("#!/bin/sh\n")}))
	os.Chmod(filepath.Join(r.dir, "mod.txt"), 0o755) // git does not see this
	if _, err := Apply(ctx, r.workspace(), "t1"); err != nil {
		t.Fatal(err)
	}
	if _, exec := r.read("new.sh"); !exec {
		t.Errorf("new.sh written without its executable bit")
	}
	os.Chmod(filepath.Join(r.dir, "new.sh"), 0o644)
	if _, err := Undo(ctx, r.workspace(), "t1"); err != nil {
		t.Fatal(err)
	}
}

func TestRefusalQuotesOddNames(t *testing.T) {
	t.Parallel()
	r, base := baseRepo(t)
	r.mkTask("t1", base, r.commitOn(base, map[string]change{"nl\nname.txt": put("x\n")}))
	r.write("nl\nname.txt", "mine\n", 0o755)
	_, err := Apply(ctx, r.workspace(), "t1")
	refusal(t, err, `"nl\nname.txt" was edited since the snapshot`)
}
