package dashboard_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/dashboard"
)

// TestDiffFollowsTheResult: the diff answer is kept between requests, and
// a task run again (a new result) is answered with its new diff, never the
// one kept.
func TestDiffFollowsTheResult(t *testing.T) {
	t.Parallel()
	dir := workspace(t)
	h := serve(t, dir)
	patch := func() string {
		t.Helper()
		code, _, body := h.do("GET", "/api/nudge/tasks/t1/diff", true, nil)
		var d dashboard.DiffDocument
		if err := json.Unmarshal(body, &d); code != 200 || err != nil {
			t.Fatalf("diff: %d %v %s", code, err, body)
		}
		return d.Patch
	}
	first := patch()
	if !strings.Contains(first, "+new\n") || patch() != first {
		t.Fatalf("the diff asked twice: %q", first)
	}
	nudge(t, dir, "run", "--task", "t1", "--", "sh", "-c", "echo newer > a.txt")
	if got := patch(); !strings.Contains(got, "+newer\n") {
		t.Fatalf("the diff after the task ran again: %q", got)
	}
}
