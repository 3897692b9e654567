package apply

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/nudgethis/git-nudge/internal/nudge/patchfiles"
	"github.com/nudgethis/git-nudge/internal/testutil/testrepo"
)

// Bytes on disk, not blobs, in a SHA-256 repository: a file held with LF under eol=crlf
// comes back byte-exact after apply and undo, from a raw blob of the
// repository's hash length.
func TestUndoRawBytesSHA256(t *testing.T) {
	t.Parallel()
	r := newRepoInit(t, []string{"init", "-q", "--object-format=sha256"})
	r.Write(".gitattributes", "*.txt text eol=crlf\n", 0o644)
	r.Write("a.txt", "one\ntwo\n", 0o644)
	base := r.CommitAll("base")
	r.mkTask("t1", base, r.CommitOn(base, map[string]testrepo.Change{"a.txt": testrepo.Put("one\n2\n")}))
	before := r.Tree()
	if _, err := Run(ctx, r.workspace(), "t1", Options{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.Read("a.txt"); got != "one\r\n2\r\n" {
		t.Errorf("applied a.txt = %q, want checkout's CRLF", got)
	}
	rec := r.load("t1")
	if raw := rec.Undo.Before[0].RawBlob; raw == nil || len(*raw) != 64 {
		t.Fatalf("undo.before has no SHA-256 raw_blob: %+v", rec.Undo.Before[0])
	}
	if _, err := Undo(ctx, r.workspace(), "t1"); err != nil {
		t.Fatal(err)
	}
	if d := testrepo.DiffTrees(before, r.Tree()); d != "" {
		t.Errorf("undo:\n%s", d)
	}
}

// Bytes that change after the plan read them, in a way git's hashing does
// not see (LF to CRLF under eol=crlf), stop the apply before any file is
// written: undo would otherwise bring back the older bytes.
func TestApplyRawBytesChangedBeforeWrite(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.Write(".gitattributes", "*.txt text eol=crlf\n", 0o644)
	r.Write("a.txt", "one\ntwo\n", 0o644)
	base := r.CommitAll("base")
	task := r.mkTask("t1", base, r.CommitOn(base, map[string]testrepo.Change{"a.txt": testrepo.Put("one\n2\n")}))
	w := r.workspace()
	ctx := context.Background()
	ops, err := patchfiles.New(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	head, err := w.Repo.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	steps, reasons, _, err := planApply(ctx, w, ops, task, head, nil, new([]string), Options{})
	if err != nil || len(reasons) > 0 {
		t.Fatalf("plan: %v %q", err, reasons)
	}
	if steps[0].From.RawBlob == nil {
		t.Fatalf("the plan kept no raw bytes for a.txt: %+v", steps[0])
	}
	stageDir, err := w.NewStage()
	if err != nil {
		t.Fatal(err)
	}
	defer w.RemoveStage(filepath.Base(stageDir))
	r.Write("a.txt", "one\r\ntwo\r\n", 0o644) // the same blob for git
	touched, err := ops.Transition(ctx, steps, stageDir, "", "since the snapshot", "apply", nil)
	var ce *patchfiles.ChangedError
	if touched || !errors.As(err, &ce) {
		t.Fatalf("transition: touched=%v err=%v, want a changedError before any write", touched, err)
	}
	if got, _ := r.Read("a.txt"); got != "one\r\ntwo\r\n" {
		t.Errorf("a.txt = %q, want it left as found", got)
	}
}
