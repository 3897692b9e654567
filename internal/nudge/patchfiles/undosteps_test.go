package patchfiles

import (
	"reflect"
	"testing"

	"github.com/nudgethis/git-nudge/internal/nudge"
)

// UndoSteps takes each path from its state after the apply back to its
// state before, in the record's order, and refuses a record undo must
// not act on.
func TestUndoSteps(t *testing.T) {
	file := func(p, blob string) nudge.PathState {
		return nudge.PathState{Path: p, Mode: nudge.StrPtr(nudge.ModeFile), Blob: nudge.StrPtr(blob)}
	}
	none := func(p string) nudge.PathState { return nudge.PathState{Path: p} }
	u := &nudge.Undo{
		Before: []nudge.PathState{file("a", "1111"), none("b")},
		After:  []nudge.PathState{file("a", "2222"), file("b", "3333")},
	}
	steps, ok := UndoSteps(u)
	want := []Step{{Path: "a", From: u.After[0], To: u.Before[0]}, {Path: "b", From: u.After[1], To: u.Before[1]}}
	if !ok || !reflect.DeepEqual(steps, want) {
		t.Fatalf("UndoSteps = %v, %v; want %v", steps, ok, want)
	}
	for name, bad := range map[string]*nudge.Undo{
		"no record":       nil,
		"empty":           {},
		"one side short":  {Before: u.Before, After: u.After[:1]},
		"paths differ":    {Before: []nudge.PathState{file("a", "1")}, After: []nudge.PathState{file("b", "2")}},
		"outside":         {Before: []nudge.PathState{file("../a", "1")}, After: []nudge.PathState{file("../a", "2")}},
		"raw bytes after": {Before: []nudge.PathState{file("a", "1")}, After: []nudge.PathState{{Path: "a", Mode: nudge.StrPtr(nudge.ModeFile), Blob: nudge.StrPtr("2"), RawBlob: nudge.StrPtr("3")}}},
	} {
		if steps, ok := UndoSteps(bad); ok {
			t.Errorf("%s: UndoSteps accepted it: %v", name, steps)
		}
	}
}
