package autodev

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
)

func TestLine(t *testing.T) {
	now := time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC)
	task, mode := "T-1", "night"
	e := Entry{ID: "c12", Commit: "0123456789abcdef", Label: "thread — fix", Type: TypeTask, Time: "2026-03-03T09:00:00Z", Task: &task, Mode: &mode}
	if got, want := Line(e, now, true), "c12 ✔ thread — fix   T-1 · 0123456 · night · 3h ago ← HEAD"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
	e = Entry{ID: "c1", Commit: "abcdef0123", Label: BaselineLabel, Type: TypeBaseline, Time: "garbage"}
	if got, want := Line(e, now, false), "c1 ─ baseline before run   — · abcdef0 · — · —"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
	if Mark(TypePreRestore) != "⤿" || Mark(TypeBaseline) != "─" || Mark(TypeTask) != "✔" {
		t.Error("marks")
	}
}

func TestResolveTarget(t *testing.T) {
	j := &Journal{Entries: []Entry{
		{ID: "c1", Commit: "aaaaaaa111", Label: "one"},
		{ID: "c2", Commit: "aaaaaaa222", Label: "two"},
		{ID: "c3", Commit: "bbbbbbb333", Label: "three"},
		{ID: "c4", Commit: "bbbbbbb333", Label: "pre-restore — three"},
	}}
	for _, c := range []struct{ id, want, err string }{
		{"c2", "c2", ""},
		{"aaaaaaa2", "c2", ""},
		{"AAAAAAA2", "c2", ""},
		{"bbbbbbb", "c3", ""}, // one commit, two entries: the first wins
		{"aaaaaaa", "", "Restore failed: ambiguous checkpoint: aaaaaaa matches 2 commits"},
		{"aaaaaa", "", "Restore failed: unknown checkpoint: aaaaaa"},
		{"c9", "", "Restore failed: unknown checkpoint: c9"},
	} {
		e, err := resolveTarget(j, c.id)
		if c.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), c.err) {
				t.Errorf("resolveTarget(%q) error = %v, want %q", c.id, err, c.err)
			}
			continue
		}
		if err != nil || e.ID != c.want {
			t.Errorf("resolveTarget(%q) = %s, %v; want %s", c.id, e.ID, err, c.want)
		}
	}
}

func TestCommitMessageRoundTrip(t *testing.T) {
	task, mode := "T-9", "night mode"
	at := origin{Worktree: "/tmp/a \"odd\"\nwork tree ", Branch: "feature/x"}
	msg := commitMessage(taskLabel("Fix it\nbody line"), restOf("Fix it\nbody line"), &task, &mode, at)
	if !strings.HasPrefix(msg, "autodev: thread — Fix it\n\nbody line\n\nAutodev-Task: T-9\nAutodev-Mode: night mode\nAutodev-Worktree: \"/tmp/a") ||
		!strings.HasSuffix(msg, "\nAutodev-Branch: feature/x\n") {
		t.Fatalf("message %q", msg)
	}
	e := entryFromCommit("c5", git.CommitInfo{ID: "abc", Time: time.Unix(0, 0), Message: strings.TrimRight(msg, "\n")})
	if e.Type != TypeTask || e.Label != "thread — Fix it" || *e.Task != task || *e.Mode != mode || e.Time != "1970-01-01T00:00:00Z" ||
		e.Worktree != at.Worktree || e.Branch != at.Branch {
		t.Errorf("entry %+v", e)
	}
	e = entryFromCommit("c6", git.CommitInfo{Message: "autodev: baseline before run"})
	if e.Type != TypeBaseline || e.Task != nil {
		t.Errorf("baseline entry %+v", e)
	}
	e = entryFromCommit("c7", git.CommitInfo{Message: "autodev: pre-restore — thread — x"})
	if e.Type != TypePreRestore || e.Label != "pre-restore — thread — x" {
		t.Errorf("pre-restore entry %+v", e)
	}
	e = entryFromCommit("c8", git.CommitInfo{Message: "Agent's own commit\n\nbody"})
	if e.Type != TypeTask || e.Label != "thread — Agent's own commit" {
		t.Errorf("own commit entry %+v", e)
	}
}

// Names in restore's refusals are quoted as git quotes them: a task's file
// name cannot drive the terminal (ESC, C1 CSI, bidi controls, invalid UTF-8).
func TestQuoteAllTerminalSafe(t *testing.T) {
	got := quoteAll([]string{"plain.txt", " lead", "e\x1b[2J", "c\u009b31m", "b\u202etxt.exe", "lat\xe9", "new\nline"})
	want := []string{"plain.txt", `" lead"`, `"e\033[2J"`, `"c\302\23331m"`, `"b\342\200\256txt.exe"`, `"lat\351"`, `"new\nline"`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("quoteAll = %q\nwant       %q", got, want)
	}
}

func TestPreRestoreLabelDoesNotNest(t *testing.T) {
	for in, want := range map[string]string{
		"thread — x":                             "pre-restore — thread — x",
		"pre-restore — thread — x":               "pre-restore — thread — x",
		"pre-restore — pre-restore — thread — x": "pre-restore — thread — x",
		"baseline before run":                    "pre-restore — baseline before run",
	} {
		if got := PreRestoreLabel(Entry{Label: in}); got != want {
			t.Errorf("PreRestoreLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRunActiveOneType: a refused restore and a refused second run are
// the same error type, each with its own text.
func TestRunActiveOneType(t *testing.T) {
	var err error = &RunActiveError{PID: 42, Restore: true}
	if got := err.Error(); got != "Stop the run before restoring — restore resets the project tree." {
		t.Errorf("restore refusal = %q", got)
	}
	err = &RunActiveError{PID: 42}
	var ra *RunActiveError
	if !errors.As(err, &ra) || !strings.Contains(err.Error(), "process 42 holds .autodev/run.lock") {
		t.Errorf("run refusal = %q", err)
	}
}
