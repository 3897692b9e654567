package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// Custom commands for the apply, undo and recover scenarios. Until the
// snapshot and capture commands exist on this branch, scripts make their
// snapshot and result commits with git and record a ready task with
// mktask; settask moves a record to another state by hand (a record left
// in "applying" by a dead process, for instance).

// scriptGit runs git in the script's current folder with the script's
// environment.
func scriptGit(ts *testscript.TestScript, args ...string) string {
	c := exec.Command("git", args...)
	c.Dir = ts.MkAbs(".")
	for _, k := range []string{"HOME", "PATH", "XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM", "TZ", "LC_ALL"} {
		c.Env = append(c.Env, k+"="+ts.Getenv(k))
	}
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		ts.Fatalf("git %q: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}

// mktask ID SNAPSHOT RESULT: record a ready task of the repository around
// the current folder, taken on the current HEAD, with the given snapshot
// and result revisions: both refs and .nudgethis/tasks/ID.json, its files
// listed by diff-tree -r --no-renames.
func mkTask(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: mktask ID SNAPSHOT RESULT")
	}
	ts.Check(makeTask(func(a ...string) string { return scriptGit(ts, a...) }, args[0], args[1], args[2]))
}

// makeTask is mktask for any way of running git in the work tree (git
// returns stdout and stops the test on failure): it records task id as
// ready, taken on the current HEAD, with the snapshot and result revisions.
func makeTask(git func(args ...string) string, id, snapRev, resultRev string) error {
	rev := func(r string) string { return strings.TrimSpace(git("rev-parse", "--verify", r+"^{commit}")) }
	snap, result := rev(snapRev), rev(resultRev)
	top := strings.TrimSpace(git("rev-parse", "--show-toplevel"))
	branch := strings.TrimSpace(git("for-each-ref", "--points-at=HEAD", "--format=%(HEAD)%(refname)", "refs/heads/"))
	var br *string
	for _, l := range strings.Split(branch, "\n") {
		if b, ok := strings.CutPrefix(l, "*"); ok {
			br = &b
		}
	}
	head := rev("HEAD")
	git("update-ref", refs.Snapshots+id, snap)
	git("update-ref", refs.Results+id, result)
	t := nudge.Task{Version: nudge.TaskSchema, ID: id, State: nudge.StateReady,
		Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Workspace: top,
		Branch: br, Head: &head, Snapshot: snap, Clean: snap == head, Result: &result}
	out := git("diff-tree", "-r", "--no-renames", "-z", "--raw", snap, result)
	recs := strings.Split(out, "\x00")
	for i := 0; i+1 < len(recs); i += 2 {
		f := strings.Fields(strings.TrimPrefix(recs[i], ":"))
		if len(f) != 5 {
			break
		}
		fc := nudge.FileChange{Path: recs[i+1], Status: f[4][:1]}
		if f[0] != "000000" {
			fc.OldMode, fc.OldBlob = &f[0], &f[2]
		}
		if f[1] != "000000" {
			fc.NewMode, fc.NewBlob = &f[1], &f[3]
		}
		t.Files = append(t.Files, fc)
	}
	dir := filepath.Join(top, nudge.StateDirName)
	if err := os.MkdirAll(filepath.Join(dir, "tasks"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*\n"), 0o644); err != nil {
		return err
	}
	return journal.Write(filepath.Join(dir, "tasks", id+".json"), t)
}

// settask ID STATE: set a task record's state by hand, as a process that
// died mid-way would have left it. With STATE applying or undoing, an
// undo record is made from the task's files when it has none.
func setTask(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: settask ID STATE")
	}
	top := strings.TrimSpace(scriptGit(ts, "rev-parse", "--show-toplevel"))
	path := filepath.Join(top, nudge.StateDirName, "tasks", args[0]+".json")
	var t nudge.Task
	ts.Check(journal.Read(path, &t))
	t.State = args[1]
	if (t.State == nudge.StateApplying || t.State == nudge.StateUndoing) && t.Undo == nil {
		u := &nudge.Undo{Branch: t.Branch, Head: t.Head}
		for _, f := range t.Files {
			u.Before = append(u.Before, nudge.PathState{Path: f.Path, Mode: f.OldMode, Blob: f.OldBlob})
			u.After = append(u.After, nudge.PathState{Path: f.Path, Mode: f.NewMode, Blob: f.NewBlob})
		}
		t.Undo = u
	}
	ts.Check(journal.Write(path, t))
}
