package apply

import (
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/testutil/testrepo"
)

// Undo refuses, changing nothing, when a previous content it would write
// back is not in the repository's objects (looked up in this process
// where it can be).
func TestUndoRefusesMissingPreviousContent(t *testing.T) {
	t.Parallel()
	r, base := baseRepo(t)
	r.mkTask("t1", base, r.CommitOn(base, map[string]testrepo.Change{"mod.txt": testrepo.Put("x\n")}))
	ws := r.workspace()
	if _, err := Run(ctx, ws, "t1", Options{}); err != nil {
		t.Fatal(err)
	}
	task, err := ws.Load("t1")
	if err != nil {
		t.Fatal(err)
	}
	missing := strings.Repeat("2", len(*task.Undo.Before[0].Blob))
	task.Undo.Before[0].Blob = &missing
	if err := ws.Save(task); err != nil {
		t.Fatal(err)
	}
	_, err = Undo(ctx, r.workspace(), "t1")
	refusal(t, err, "the previous content of mod.txt is missing from the repository's objects")
	if got, _ := r.Read("mod.txt"); got != "x\n" {
		t.Errorf("mod.txt = %q after a refused undo", got)
	}
}
