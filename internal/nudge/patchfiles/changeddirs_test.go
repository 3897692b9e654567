package patchfiles

import (
	"reflect"
	"testing"

	"github.com/nudgethis/git-nudge/internal/nudge"
)

// The folders fsynced after a transition are those whose entries changed:
// each written or removed path's folder, and the folder holding each
// folder made or pruned; a leading folder left as it was is not among
// them.
func TestChangedDirs(t *testing.T) {
	t.Parallel()
	blob, mode := "1111111111111111111111111111111111111111", nudge.ModeFile
	file := nudge.PathState{Mode: &mode, Blob: &blob}
	steps := []Step{
		{Path: "src/d1/e1/a.txt", From: file, To: file},                    // changed in place
		{Path: "top.txt", From: nudge.PathState{}, To: file},               // added at the top level
		{Path: "src/d2/new/deep/b.txt", From: nudge.PathState{}, To: file}, // added in new folders
		{Path: "old/gone/c.txt", From: file, To: nudge.PathState{}},        // removed, its folders pruned
	}
	got := ChangedDirs(steps, []string{"src/d2/new", "src/d2/new/deep"}, []string{"old/gone", "old"})
	want := []string{"", "src/d1/e1", "src/d2", "src/d2/new", "src/d2/new/deep"} // old and old/gone are gone
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changedDirs = %q, want %q", got, want)
	}
	// d/x, d's only entry, becomes a folder: removing the file prunes d,
	// writing d/x/y makes d and d/x again; d holds a new entry.
	got = ChangedDirs([]Step{{Path: "d/x", From: file, To: nudge.PathState{}}, {Path: "d/x/y", From: nudge.PathState{}, To: file}},
		[]string{"d", "d/x"}, []string{"d"})
	if want := []string{"", "d", "d/x"}; !reflect.DeepEqual(got, want) {
		t.Errorf("changedDirs, file to folder = %q, want %q", got, want)
	}
}
