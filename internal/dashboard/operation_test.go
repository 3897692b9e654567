package dashboard_test

import (
	"reflect"
	"testing"

	"github.com/nudgethis/git-nudge/internal/cli/autodevcmd"
	"github.com/nudgethis/git-nudge/internal/cli/nudgecmd"
	"github.com/nudgethis/git-nudge/internal/cli/opcmd"
	"github.com/nudgethis/git-nudge/internal/dashboard"
)

// A page action is recorded as the command of the same name declares
// itself on the command line: same scope, same index and file handling.
func TestPageActionsDeclareAsTheirCommands(t *testing.T) {
	t.Parallel()
	cases := []struct {
		tool, action string
		cmd          opcmd.Recorded
	}{
		{"nudge", "apply", &nudgecmd.ApplyCmd{}},
		{"nudge", "undo", &nudgecmd.UndoCmd{}},
		{"nudge", "save", &nudgecmd.SaveCmd{}},
		{"nudge", "drop", &nudgecmd.DropCmd{}},
		{"nudge", "queue", &nudgecmd.QueueCmd{}},
		{"autodev", "restore", &autodevcmd.RestoreCmd{ID: "c1"}},
	}
	for _, c := range cases {
		want, ok := c.cmd.Operation()
		if !ok {
			t.Fatalf("%s %s declares no operation", c.tool, c.action)
		}
		want.Tool = c.tool
		if got := dashboard.Operation(c.tool, c.action); !reflect.DeepEqual(got, want) {
			t.Errorf("the page's %s %s is recorded as %+v, the command line's as %+v", c.tool, c.action, got, want)
		}
	}
}
