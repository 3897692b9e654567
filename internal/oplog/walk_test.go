package oplog

import (
	"strings"
	"testing"
)

// ops builds a log newest first from oldest-first specs "kind" or
// "op-undo:oN" / "op-redo:oN", every one done.
func walkLog(specs ...string) []*Op {
	var ops []*Op
	for i, s := range specs {
		kind, undoes, _ := strings.Cut(s, ":")
		o := &Op{ID: "o" + itoa(i+1), Kind: kind, State: Done, Undoes: undoes, Tool: "autodev"}
		ops = append([]*Op{o}, ops...)
	}
	markUndone(ops)
	return ops
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

func undoneBy(ops []*Op) map[string]string {
	m := map[string]string{}
	for _, o := range ops {
		if o.UndoneBy != "" {
			m[o.ID] = o.UndoneBy
		}
	}
	return m
}

func TestMarkUndoneChains(t *testing.T) {
	for _, c := range []struct {
		specs []string
		want  string // "oN<oM ..." sorted by id
	}{
		{[]string{"checkpoint", "checkpoint", "op-undo:o2"}, "o2<o3"},
		{[]string{"checkpoint", "checkpoint", "op-undo:o2", "op-undo:o1"}, "o1<o4 o2<o3"},
		// a redo takes the undo back: o1 is in effect again
		{[]string{"checkpoint", "op-undo:o1", "op-redo:o2"}, "o2<o3"},
		// undoing the redo puts the undo's effect back
		{[]string{"checkpoint", "op-undo:o1", "op-redo:o2", "op-undo:o3"}, "o1<o2 o3<o4"},
		// a record naming a later operation is ignored
		{[]string{"op-undo:o2", "checkpoint"}, ""},
	} {
		got := undoneBy(walkLog(c.specs...))
		var parts []string
		for _, o := range walkLog(c.specs...) {
			if got[o.ID] != "" {
				parts = append([]string{o.ID + "<" + got[o.ID]}, parts...)
			}
		}
		if s := strings.Join(parts, " "); s != c.want {
			t.Errorf("%v: undone %q, want %q", c.specs, s, c.want)
		}
	}
}

func TestRedoTarget(t *testing.T) {
	for _, c := range []struct {
		specs []string
		want  string // the undo taken back, or "refused: <text>"
	}{
		{[]string{"checkpoint", "op-undo:o1"}, "o2"},
		{[]string{"checkpoint", "checkpoint", "op-undo:o2", "op-undo:o1"}, "o4"},
		{[]string{"checkpoint", "checkpoint", "op-undo:o2", "op-undo:o1", "op-redo:o4"}, "o3"},
		{[]string{"checkpoint", "checkpoint", "op-undo:o2", "op-undo:o1", "op-redo:o4", "op-redo:o3"}, "refused: nothing to redo: every undo recorded since o2 has been redone"},
		{[]string{"checkpoint", "op-undo:o1", "checkpoint"}, "refused: nothing to redo: o3 (git autodev checkpoint) was recorded after the last undo"},
		{[]string{"checkpoint", "checkpoint", "op-undo:o2", "op-redo:o3", "checkpoint"}, "refused: nothing to redo: no undo is waiting to be redone"},
		{[]string{"checkpoint"}, "refused: nothing to redo: no undo is waiting to be redone"},
	} {
		target, re := redoTarget(walkLog(c.specs...), "autodev")
		got := ""
		if re != nil {
			got = "refused: " + re.Error()
		} else {
			got = target.ID
		}
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%v: redo %q, want %q", c.specs, got, c.want)
		}
	}
}

func TestTrustedNames(t *testing.T) {
	for _, j := range []string{".nudgethis/saves.json", ".autodev/checkpoints.json", ".autodev/state.json", ".nudgethis/tasks/t12.json"} {
		if !trustedJournal(j) {
			t.Errorf("journal %q refused", j)
		}
	}
	for _, j := range []string{".git/config", "../x.json", ".nudgethis/tasks/../../a.json", ".nudgethis/tasks/a/b.json", ".nudgethis/tasks/.json",
		".nudgethis/tasks/t1.txt", "/etc/passwd", ".nudgethis/server.lock", ".autodev/hook.log", ".nudgethis/tasks/t 1.json"} {
		if trustedJournal(j) {
			t.Errorf("journal %q accepted", j)
		}
	}
	for _, r := range []string{"HEAD", "refs/heads/main", "refs/heads/feature/x", "refs/nudgethis/snapshots/t1", "refs/autodev/checkpoints/c3"} {
		if !trustedRef(r) {
			t.Errorf("ref %q refused", r)
		}
	}
	for _, r := range []string{"refs/tags/v1", "refs/nudgethis-oplog/main", "refs/heads/../../config", "refs/heads/", "refs/heads/a.lock",
		"refs/remotes/origin/main", "config", "refs/heads/.hidden", "refs/heads/a b", "refs/heads/a@{1}"} {
		if trustedRef(r) {
			t.Errorf("ref %q accepted", r)
		}
	}
}

// The index Undoable builds once names the same later operations as
// laterTouches does for each target, and caps them alike.
func TestLaterIndexMatchesLaterTouches(t *testing.T) {
	var ops []*Op
	for i := 1; i <= 40; i++ {
		o := &Op{ID: "o" + itoa(i), Kind: "checkpoint", State: Done, Tool: "autodev"}
		switch i % 4 {
		case 0:
			o.Refs = []RefChange{{Name: "refs/heads/main"}}
			o.Journals = []BlobChange{{File: ".autodev/checkpoints.json"}}
		case 1:
			o.Refs = []RefChange{{Name: "refs/heads/side"}}
		case 2:
			o.Files = []FileChange{{Path: "a.txt"}}
		case 3:
			o.Journals = []BlobChange{{File: ".autodev/checkpoints.json"}}
		}
		if i == 35 {
			o.Kind, o.Undoes = KindUndo, "o34"
		}
		ops = append([]*Op{o}, ops...)
	}
	markUndone(ops)
	x := newLaterIndex(ops)
	named := func(reasons []string) string {
		var ids []string
		for _, r := range reasons {
			f := strings.Fields(r)
			ids = append(ids, f[2]) // "later operation oN ..." or "and N more ..."
		}
		return strings.Join(ids, " ")
	}
	some := 0
	for _, o := range ops {
		want, got := laterTouches(ops, o), x.touches(o)
		if named(got) != named(want) {
			t.Errorf("%s: the index names %q, laterTouches %q", o.ID, named(got), named(want))
		}
		if len(want) > maxLaterReasons+1 {
			t.Errorf("%s: %d reasons, more than the cap", o.ID, len(want))
		}
		if len(want) > 0 {
			some++
		}
	}
	if some == 0 {
		t.Fatal("no operation had a later one touching the same things: the test checks nothing")
	}
}
