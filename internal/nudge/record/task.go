// Package record is git-nudge's task record: .nudgethis/tasks/<id>.json
// and `show --json`, its states and the types it holds (the patch, the
// undo record, validation, refresh conflicts), its JSON encoding (names as
// bytes, fields a newer version added kept) and the summary git nudge list
// reads of it. It knows no workspace: the workspace core and the
// workflows above it import it, and it imports none of them.
package record

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/guard"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/pathenc"
	"github.com/nudgethis/git-nudge/internal/snapshot"
)

// TaskSchema is the version written into every task record.
const TaskSchema = 1

// Task states.
const (
	StateSnapshotted      = "snapshotted"
	StatePreparing        = "preparing"
	StatePrepared         = "prepared"
	StateRunning          = "running"
	StateReady            = "ready"
	StateApplying         = "applying"
	StateApplied          = "applied"
	StateUndoing          = "undoing"
	StateUndone           = "undone"
	StateSaved            = "saved"
	StateFailed           = "failed"
	StateRecoveryRequired = "recovery_required"
)

// StateLabel is how a state is spelled for people ("Recovery required").
func StateLabel(state string) string {
	if state == StateRecoveryRequired {
		return "Recovery required"
	}
	return state
}

// Skipped is a path a capture left out, and why: the one type, snapshot's.
type Skipped = snapshot.Skipped

// AppliedPaths is Task.Applied.
type AppliedPaths struct {
	Count int      `json:"count"`
	Total int      `json:"total"`
	Label string   `json:"label"`
	Paths []string `json:"paths"`
}

// FileChange is one path of a task's patch (snapshot -> result).
type FileChange struct {
	Path    string  `json:"path"`
	Status  string  `json:"status"` // "A", "M", "D", "T" (type/mode change)
	OldMode *string `json:"old_mode"`
	OldBlob *string `json:"old_blob"`
	NewMode *string `json:"new_mode"`
	NewBlob *string `json:"new_blob"`
}

// PathState is one path's content in the undo record: mode and blob, both
// nil when the path holds no file.
type PathState struct {
	Path string  `json:"path"`
	Mode *string `json:"mode"`
	Blob *string `json:"blob"`
	// RawBlob (undo.before only) holds the file's bytes as they were on
	// disk, written without filters, when they differ from what git
	// checkout writes for Blob (eol, clean/smudge, ident, encoding):
	// undo writes these bytes back unfiltered.
	RawBlob *string `json:"raw_blob,omitempty"`
}

// Undo is what apply recorded before touching any file.
type Undo struct {
	Branch *string     `json:"branch"`
	Head   *string     `json:"head"`
	Before []PathState `json:"before"`
	After  []PathState `json:"after"`
}

// Task is a task record: .nudgethis/tasks/<id>.json and `show --json`.
type Task struct {
	Version   int       `json:"version"`
	ID        string    `json:"id"`
	State     string    `json:"state"`
	Note      string    `json:"note"`
	Created   time.Time `json:"created"`
	Workspace string    `json:"workspace"`
	Branch    *string   `json:"branch"` // full ref name; nil when detached
	Head      *string   `json:"head"`   // nil on an unborn branch
	Snapshot  string    `json:"snapshot"`
	Clean     bool      `json:"clean"`
	Skipped   []Skipped `json:"skipped"`
	// Rules are the capture and protection rules (from git config) when
	// the task was created. Capturing its result and applying it use these,
	// never what the shared config says later: a task can rewrite that.
	Rules *Rules `json:"rules,omitempty"`
	// ConfigChanges are changes to the repository's shared git settings
	// (config, hooks, info/exclude, info/attributes) found while the task
	// could make them, put back, and not yet accepted: apply refuses
	// until --accept-config-change.
	ConfigChanges []string `json:"config_changes,omitempty"`
	// ConfigChangesAccepted are those that apply --accept-config-change
	// went past.
	ConfigChangesAccepted []string `json:"config_changes_accepted,omitempty"`
	// GuardPending is set while the task is prepared or run and cleared by
	// the settings check that follows: a task whose run was killed is
	// still checked for, by the next command.
	GuardPending bool `json:"guard_pending,omitempty"`
	// RefChanges are the refs outside its own that the task's last
	// unsandboxed run made, moved or deleted, and what was done about
	// each (quarantine.go).
	RefChanges []RefChange `json:"ref_changes,omitempty"`
	// ResultSkipped is what capturing the result left out of it.
	ResultSkipped []Skipped `json:"result_skipped,omitempty"`
	Worktree      *string   `json:"worktree"`
	// WorktreeReleased is true once a finished task's worktree, holding
	// nothing its result does not, went back to the pool or was removed
	// (release.go); git nudge start brings one back at the result.
	WorktreeReleased bool `json:"worktree_released,omitempty"`
	// KeepWorktree keeps the task's worktree once it is finished
	// (--keep-worktree).
	KeepWorktree bool         `json:"keep_worktree,omitempty"`
	Command      []string     `json:"command"`
	ExitCode     *int         `json:"exit_code"`
	Result       *string      `json:"result"`
	Files        []FileChange `json:"files"`
	Undo         *Undo        `json:"undo"`
	AppliedAt    *time.Time   `json:"applied_at"`
	UndoneAt     *time.Time   `json:"undone_at"`
	SavedIn      *string      `json:"saved_in"`
	Error        *string      `json:"error"`
	// Conflicts are the paths an apply --conflicts wrote with conflict
	// markers (state "applied (conflicts)"): save refuses while they hold
	// markers.
	Conflicts []string `json:"conflicts,omitempty"`
	// Applied says which paths of the patch are applied (written on
	// every write from the undo record, for scripts and the dashboard):
	// {"count":3,"total":7,"label":"applied 3/7","paths":[...]}.
	Applied *AppliedPaths `json:"applied,omitempty"`
	// Updated is when the record was last written.
	Updated time.Time `json:"updated"`

	// PID is the git-nudge process preparing or running the task and
	// CommandPID the command it started; set only while that goes on.
	PID        *int `json:"pid,omitempty"`
	CommandPID *int `json:"command_pid,omitempty"`

	// Setup is the commit of the worktree as the setup commands left it
	// (parent: the snapshot), when they changed anything: the task's
	// result and patch start there. SetupFiles are the paths setup
	// changed (snapshot -> setup); they are never applied.
	Setup      *string      `json:"setup,omitempty"`
	SetupFiles []FileChange `json:"setup_files,omitempty"`

	// Sandbox is true when the task's command last ran confined (run
	// --sandbox).
	Sandbox bool `json:"sandbox,omitempty"`

	// Runner is the runner the task's command runs on (run --on, queue
	// --on, git config nudge.runner); "" on this machine.
	Runner string `json:"runner,omitempty"`
	// Attempt is the task's number among the attempts started together
	// from one snapshot (run --attempts), 0 when it is not one of them.
	Attempt int `json:"attempt,omitempty"`
	// RunSeconds is how long its command last ran, in seconds.
	RunSeconds *float64 `json:"run_seconds,omitempty"`

	// Validation is what the nudge.validate commands found about the
	// result; nil when none are configured.
	Validation *Validation `json:"validation,omitempty"`

	// RefreshedFrom is the task whose change refresh merged onto this
	// task's snapshot; RefreshConflicts the paths where it could not
	// (the task is then failed).
	RefreshedFrom    string          `json:"refreshed_from,omitempty"`
	RefreshConflicts []MergeConflict `json:"refresh_conflicts,omitempty"`

	extra journal.Extra
}

type taskFields Task

// MarshalJSON writes the record, keeping fields a newer version added.
func (t Task) MarshalJSON() ([]byte, error) {
	if t.Skipped == nil {
		t.Skipped = []Skipped{}
	}
	if t.Files == nil {
		t.Files = []FileChange{}
	}
	t.Applied = nil
	if n, total := t.AppliedCount(); n > 0 {
		a := &AppliedPaths{Count: n, Total: total, Label: t.Label(), Paths: []string{}}
		for _, p := range t.Undo.After {
			a.Paths = append(a.Paths, p.Path)
		}
		t.Applied = a
	}
	return marshalTask(&t) // pathjson.go: names are bytes
}

// UnmarshalJSON reads a record, remembering fields this version does not know.
func (t *Task) UnmarshalJSON(data []byte) error {
	return unmarshalTask(t, data) // pathjson.go: names are bytes
}

// Base is the commit the task's patch starts from: the setup commit when
// setup changed anything, else the snapshot.
func (t *Task) Base() string {
	if t.Setup != nil && *t.Setup != "" {
		return *t.Setup
	}
	return t.Snapshot
}

// Rules are the recorded nudge.protect, nudge.skipDir and
// nudge.maxUntracked of a task.
type Rules struct {
	Protect      []string `json:"protect"`
	SkipDirs     []string `json:"skip_dirs"`
	MaxUntracked int      `json:"max_untracked"`
}

// RulesOf is the record of the capture rules o (never nil lists).
func RulesOf(o snapshot.Options) *Rules {
	r := &Rules{Protect: o.Protect, SkipDirs: o.SkipDirs, MaxUntracked: o.MaxUntracked}
	if r.Protect == nil {
		r.Protect = []string{}
	}
	if r.SkipDirs == nil {
		r.SkipDirs = []string{}
	}
	return r
}

// Options are the recorded rules as capture options.
func (r *Rules) Options() snapshot.Options {
	return snapshot.Options{Protect: r.Protect, SkipDirs: r.SkipDirs, MaxUntracked: r.MaxUntracked, MaxFileSize: snapshot.MaxFileSize}
}

// Path helpers for optional fields.
func StrPtr(s string) *string { return &s }

func OptStr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func Deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

var _ json.Marshaler = Task{}

// StateValidating is the state of a task whose nudge.validate commands
// run.
const StateValidating = "validating"

// Validation outcomes.
const (
	ValidationPassed  = "passed"
	ValidationFailed  = "failed"
	ValidationSkipped = "skipped"
)

// Validation is what the nudge.validate commands found about a task's
// result: "validation" in the task record.
type Validation struct {
	State    string              `json:"state"` // passed, failed, skipped
	Commands []ValidationCommand `json:"commands"`
	// Result is the result commit that was validated.
	Result  string     `json:"result,omitempty"`
	Started *time.Time `json:"started,omitempty"`
	Log     string     `json:"log,omitempty"`
	// Reason says why validation was skipped or stopped before its
	// commands ran (interrupted, timeout setting unreadable...).
	Reason string `json:"reason,omitempty"`
	// Leftover lists the paths the validation commands changed in the
	// worktree (outside ignored files). They are not part of the result
	// and were put back to the result's version afterwards; what the
	// commands left there is kept in the commit LeftoverCommit
	// (refs/nudgethis/validation/<id>).
	Leftover       []string `json:"leftover,omitempty"`
	LeftoverCommit string   `json:"leftover_commit,omitempty"`
}

// ValidationCommand is one nudge.validate command's outcome.
type ValidationCommand struct {
	Command    string `json:"command"`
	ExitCode   *int   `json:"exit_code"`
	DurationMS int64  `json:"duration_ms"`
	TimedOut   bool   `json:"timed_out,omitempty"`
	Error      string `json:"error,omitempty"`
}

// ValidationFailed reports whether t's last validation failed.
func (t *Task) ValidationFailed() bool {
	return t.Validation != nil && t.Validation.State == ValidationFailed
}

// StatePending is the state of a queued task: a command to run, no
// snapshot yet. git nudge work (or the dashboard) takes the
// snapshot when it starts the task.
const StatePending = "pending"

// RefChange is one ref an unsandboxed run changed outside its own.
type RefChange = guard.RefChange

// MergeConflict is one path whose change could not be merged onto the
// workspace as it is now (refresh): why, and, for overlapping lines, the
// line ranges of the workspace's version that both sides changed.
type MergeConflict struct {
	Path   string      `json:"path"`
	Reason string      `json:"reason"`
	Lines  []LineRange `json:"lines,omitempty"`
}

// LineRange is lines Start..End (1-based, inclusive) of a file; End <
// Start when no line of the file itself is involved (a change that inserts
// after line End).
type LineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// String is the conflict for people: "a.txt: lines 3-5, 9 (both changed these lines)".
func (c MergeConflict) String() string {
	var parts []string
	for _, l := range c.Lines {
		switch {
		case l.End < l.Start:
			parts = append(parts, fmt.Sprintf("after line %d", l.End))
		case l.End == l.Start:
			parts = append(parts, fmt.Sprintf("line %d", l.Start))
		default:
			parts = append(parts, fmt.Sprintf("lines %d-%d", l.Start, l.End))
		}
	}
	s := pathenc.Quote(c.Path) + ": "
	if len(parts) > 0 {
		s += strings.Join(parts, ", ") + ": "
	}
	return s + c.Reason
}
