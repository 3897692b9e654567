package cli_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/snapshot"
)

// A workflow's refusal is the command layer's: one type, so the error
// document lists its reasons however it was wrapped, with no converter.
func TestWorkflowRefusalIsCommandRefusal(t *testing.T) {
	var err error = fmt.Errorf("wrapped: %w", &nudge.RefusedError{What: "cannot save", Reasons: []string{"a reason"}, Next: "do this"})
	doc := cli.ErrorJSON(err, 1)
	if doc.Error != "cannot save" || !reflect.DeepEqual(doc.Reasons, []string{"a reason"}) || doc.Next != "do this" {
		t.Errorf("ErrorJSON = %+v, want the refusal's what, reasons and next", doc)
	}
}

// One Skipped type: what a capture leaves out is what a task records.
func TestOneSkippedType(t *testing.T) {
	if reflect.TypeOf(nudge.Skipped{}) != reflect.TypeOf(snapshot.Skipped{}) {
		t.Error("nudge.Skipped and snapshot.Skipped are different types")
	}
}
