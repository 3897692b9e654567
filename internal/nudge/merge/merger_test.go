package merge

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/testutil/testrepo"
)

// workspace is a workspace on a new test repository.
func workspace(t *testing.T) (*testrepo.Repo, *nudge.Workspace) {
	t.Helper()
	r := testrepo.New(t)
	r.StateDir = nudge.StateDirName
	ws, err := nudge.Open(context.Background(), r.Dir, func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) })
	if err != nil {
		t.Fatal(err)
	}
	return r, ws
}

// clashingLines names the lines of the workspace's version that clash
// with the task's change: a changed range, a range that touches the
// task's (adjacent lines conflict in git merge-file too), and an
// insertion ("after line N"); a change far from the task's is not named.
func TestConflictLines(t *testing.T) {
	r, ws := workspace(t)
	lines := func(ls ...string) string {
		var b strings.Builder
		for _, l := range ls {
			b.WriteString(l + "\n")
		}
		return b.String()
	}
	blob := func(s string) string {
		return strings.TrimSpace(r.GitIn([]byte(s), nil, "hash-object", "-w", "--stdin"))
	}
	base := blob(lines("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"))
	theirs := blob(lines("1", "two", "3", "4", "5", "6", "7", "8", "9", "10", "11", "twelve"))
	// ours: line 2 and 3 changed (clash with the task's line 2); a line
	// inserted after 11 (touches the task's line 12); line 6 changed
	// (no clash).
	ours := blob(lines("1", "TWO", "THREE", "4", "5", "SIX", "7", "8", "9", "10", "11", "new", "12"))
	got, err := ClashingLines(context.Background(), ws.Repo, base, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	want := []nudge.LineRange{{Start: 2, End: 3}, {Start: 12, End: 12}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("clashingLines = %v, want %v", got, want)
	}
	// The same through git merge-file: a conflict exists.
	m := New(context.Background(), ws, ws.Repo, map[string][]byte{})
	defer m.Close()
	if _, why, err := m.Merge3(Ent{"100644", base}, Ent{"100644", ours}, Ent{"100644", theirs}); err != nil || why != ClashLines {
		t.Fatalf("merge3: %q %v, want a clash of lines", why, err)
	}
	// A deletion in ours ("after line N" when nothing of ours is left).
	ours2 := blob(lines("1", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"))
	got, err = ClashingLines(context.Background(), ws.Repo, base, ours2, theirs)
	if err != nil {
		t.Fatal(err)
	}
	if want := []nudge.LineRange{{Start: 2, End: 1}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("clashingLines (deletion) = %v, want %v", got, want)
	}
}

// The merger's participants' merges run as one batch, with one result
// each: five paths merging at once (and one path's second task, which
// waits for its first), plus one that clashes.
func TestMergerBatches(t *testing.T) {
	r, ws := workspace(t)
	blob := func(s string) Ent {
		return Ent{"100644", strings.TrimSpace(r.GitIn([]byte(s), nil, "hash-object", "-w", "--stdin"))}
	}
	base := "1\n2\n3\n4\n5\n6\n7\n8\n"
	m := New(context.Background(), ws, ws.Repo, map[string][]byte{})
	defer m.Close()
	type answer struct {
		got Ent
		why string
		err error
	}
	answers := make([]answer, 6)
	var wg sync.WaitGroup
	m.Join()
	for i := range answers {
		wg.Add(1)
		m.Join()
		go func() {
			defer wg.Done()
			defer m.Leave()
			ours, theirs := blob(fmt.Sprintf("mine %d\n", i)+base), blob(base+fmt.Sprintf("task %d\n", i))
			if i == 5 {
				theirs = blob(fmt.Sprintf("task %d\n", i) + base)
			}
			got, why, err := m.Merge3(blob(base), ours, theirs)
			answers[i] = answer{got, why, err}
		}()
	}
	m.Leave()
	wg.Wait()
	for i, a := range answers {
		switch {
		case a.err != nil:
			t.Fatalf("merge %d: %v", i, a.err)
		case i == 5 && a.why != ClashLines:
			t.Errorf("merge %d: %q, want a clash of lines", i, a.why)
		case i < 5 && (a.why != "" || string(m.made[a.got.Blob]) != fmt.Sprintf("mine %d\n%stask %d\n", i, base, i)):
			t.Errorf("merge %d: %q %q", i, a.why, m.made[a.got.Blob])
		}
	}
	if m.batches != 1 {
		t.Errorf("%d batches, want 1", m.batches)
	}
}
