package dashboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/operation"
	"github.com/nudgethis/git-nudge/internal/oplog"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// GET /api/ops keeps what the log's records decide between requests, and
// still answers at each request what op log and op undo would say then:
// after an operation is added, after one is undone, and after a file an
// operation changed is edited with nothing recorded, its answer is byte
// for byte the document worked out afresh.
func TestOpsFollowEveryChange(t *testing.T) {
	t.Parallel()
	dir := workspace(t)
	testutil.WriteFile(t, dir, "b.txt", "b\n")
	autodev(t, dir, "checkpoint", "-m", "add b")
	testutil.WriteFile(t, dir, "b.txt", "b2\n")
	autodev(t, dir, "checkpoint", "-m", "change b")
	h := serve(t, dir)
	type opDoc struct {
		ID, Kind    string
		Args        []string
		UndoneBy    *string  `json:"undone_by"`
		Undoable    bool     `json:"undoable"`
		UndoRefusal []string `json:"undo_refusal"`
	}
	fresh := func() []byte {
		t.Helper()
		r, err := oplog.Discover(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := operation.OpsDocument(context.Background(), oplog.Open(r))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(doc); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	// get asks twice (the second answer comes from what the first kept)
	// and checks both against the document worked out afresh.
	get := func(what string) []opDoc {
		t.Helper()
		want := fresh()
		for i := range 2 {
			code, _, body := h.do("GET", "/api/ops", true, nil)
			if code != 200 {
				t.Fatalf("%s: GET /api/ops: %d %s", what, code, body)
			}
			if !bytes.Equal(body, want) {
				t.Fatalf("%s: GET /api/ops (request %d) differs from the document worked out afresh\nAPI:   %s\nfresh: %s", what, i+1, body, want)
			}
		}
		var ops []opDoc
		if err := json.Unmarshal(want, &ops); err != nil || len(ops) < 2 {
			t.Fatalf("%s: %v %s", what, err, want)
		}
		return ops
	}
	label := func(o opDoc) string { return strings.Join(o.Args, " ") }

	ops := get("two checkpoints")
	if !strings.Contains(label(ops[0]), "change b") || !ops[0].Undoable ||
		!strings.Contains(label(ops[1]), "add b") || ops[1].Undoable || !strings.Contains(strings.Join(ops[1].UndoRefusal, " "), "later operation "+ops[0].ID) {
		t.Fatalf("two checkpoints: %+v", ops)
	}

	// Nothing recorded, the branch the newest operation moved moved on
	// (a plain git commit), then put back: the records are the same, the
	// answers are not.
	testutil.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "by hand")
	ops = get("a commit made by hand")
	if ops[0].Undoable || !strings.Contains(strings.Join(ops[0].UndoRefusal, " "), "changed since "+ops[0].ID) {
		t.Fatalf("a commit made by hand: %+v", ops[0])
	}
	testutil.Git(t, dir, "reset", "-q", "--soft", "HEAD~1")
	if ops = get("the commit taken back"); !ops[0].Undoable {
		t.Fatalf("the commit taken back: %+v", ops[0])
	}

	// An operation added from the command line.
	testutil.WriteFile(t, dir, "c.txt", "c\n")
	autodev(t, dir, "checkpoint", "-m", "add c")
	ops = get("a third checkpoint")
	if !strings.Contains(label(ops[0]), "add c") || !ops[0].Undoable || ops[1].Undoable ||
		!strings.Contains(strings.Join(ops[1].UndoRefusal, " "), "later operation "+ops[0].ID) {
		t.Fatalf("a third checkpoint: %+v", ops[:2])
	}

	// Undone from the command line, then redone.
	third := ops[0].ID
	nudge(t, dir, "op", "undo", third)
	ops = get("the third undone")
	if ops[0].Kind != "op-undo" || !ops[0].Undoable || ops[1].ID != third || ops[1].Undoable ||
		ops[1].UndoneBy == nil || *ops[1].UndoneBy != ops[0].ID {
		t.Fatalf("the third undone: %+v", ops[:2])
	}
	nudge(t, dir, "op", "redo")
	ops = get("the third redone")
	if ops[0].Kind != "op-redo" || ops[2].ID != third || ops[2].UndoneBy != nil {
		t.Fatalf("the third redone: %+v", ops[:3])
	}
}
