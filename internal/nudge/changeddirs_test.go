package nudge

import (
	"reflect"
	"testing"
)

// The folders fsynced after a transition are those whose entries changed:
// each written or removed path's folder, and the folder holding each
// folder made or pruned; a leading folder left as it was is not among
// them.
func TestChangedDirs(t *testing.T) {
	t.Parallel()
	blob, mode := "1111111111111111111111111111111111111111", modeFile
	file := PathState{Mode: &mode, Blob: &blob}
	steps := []step{
		{Path: "src/d1/e1/a.txt", From: file, To: file},              // changed in place
		{Path: "top.txt", From: PathState{}, To: file},               // added at the top level
		{Path: "src/d2/new/deep/b.txt", From: PathState{}, To: file}, // added in new folders
		{Path: "old/gone/c.txt", From: file, To: PathState{}},        // removed, its folders pruned
	}
	got := changedDirs(steps, []string{"src/d2/new", "src/d2/new/deep"}, []string{"old/gone", "old"})
	want := []string{"", "src/d1/e1", "src/d2", "src/d2/new", "src/d2/new/deep"} // old and old/gone are gone
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changedDirs = %q, want %q", got, want)
	}
}
