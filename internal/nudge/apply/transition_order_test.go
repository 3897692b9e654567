package apply

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/nudgethis/git-nudge/internal/nudge/patchfiles"
	"github.com/nudgethis/git-nudge/internal/testutil/testrepo"
)

// The in-flight record is written while the new contents are staged
// (transition's recorded callback): when transition asks for the record,
// the new contents are already in the stage, but no file of the work tree
// has changed; and when the record cannot be written, transition changes
// nothing and leaves nothing in the stage.
func TestTransitionTouchesNothingBeforeTheRecord(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.Write("a.txt", "one\n", 0o644)
	r.Write("sub/b.txt", "bee\n", 0o644)
	base := r.CommitAll("base")
	task := r.mkTask("t1", base, r.CommitOn(base, map[string]testrepo.Change{
		"a.txt": testrepo.Put("ONE\n"), "sub/b.txt": testrepo.Del(), "new/c.txt": testrepo.Put("sea\n"),
	}))
	w := r.workspace()
	ctx := context.Background()
	before := r.Tree()
	for _, fail := range []bool{true, false} {
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
		stageDir, err := w.NewStage()
		if err != nil {
			t.Fatal(err)
		}
		asked := 0
		recordErr := errors.New("the record could not be written")
		recorded := func() error {
			asked++
			if d := testrepo.DiffTrees(before, r.Tree()); d != "" {
				t.Errorf("the work tree changed before the record was written:\n%s", d)
			}
			staged, _ := os.ReadDir(stageDir)
			if len(staged) != 2 {
				t.Errorf("the stage holds %d files when the record is asked for, want the 2 new contents", len(staged))
			}
			if fail {
				return recordErr
			}
			return nil
		}
		touched, err := ops.Transition(ctx, steps, stageDir, "", "since the snapshot", "apply", recorded)
		ops.Close()
		if asked != 1 {
			t.Errorf("the record was asked for %d times, want once", asked)
		}
		if fail {
			if touched || !errors.Is(err, recordErr) {
				t.Errorf("transition with no record: touched=%v err=%v", touched, err)
			}
			if d := testrepo.DiffTrees(before, r.Tree()); d != "" {
				t.Errorf("the work tree changed without a record:\n%s", d)
			}
			if left, _ := os.ReadDir(stageDir); len(left) != 0 {
				t.Errorf("the stage still holds %d files", len(left))
			}
		} else {
			if err != nil {
				t.Fatalf("transition: %v", err)
			}
			if got, _ := r.Read("a.txt"); got != "ONE\n" {
				t.Errorf("a.txt = %q after the transition", got)
			}
			if _, err := os.Stat(filepath.Join(r.Dir, "sub", "b.txt")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("sub/b.txt still there: %v", err)
			}
		}
		_ = w.RemoveStage(filepath.Base(stageDir))
	}
}
