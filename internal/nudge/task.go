// Package nudge is git-nudge's workspace core: the workspace's .nudgethis
// state folder, its locks, the task records' life cycle (capture, the
// guard, settling what dead processes left) and what the workflows above
// it share. It never sees kong types. The task record itself is
// internal/nudge/record; the names below keep its types under this
// package's name for the code that reads records through the workspace.
package nudge

import (
	"github.com/nudgethis/git-nudge/internal/guard"
	"github.com/nudgethis/git-nudge/internal/nudge/record"
	"github.com/nudgethis/git-nudge/internal/pathenc"
	"github.com/nudgethis/git-nudge/internal/snapshot"
)

// The task record's version, states and types (see internal/nudge/record).
const (
	TaskSchema = record.TaskSchema

	StateSnapshotted      = record.StateSnapshotted
	StatePreparing        = record.StatePreparing
	StatePrepared         = record.StatePrepared
	StateRunning          = record.StateRunning
	StateReady            = record.StateReady
	StateApplying         = record.StateApplying
	StateApplied          = record.StateApplied
	StateUndoing          = record.StateUndoing
	StateUndone           = record.StateUndone
	StateSaved            = record.StateSaved
	StateFailed           = record.StateFailed
	StateRecoveryRequired = record.StateRecoveryRequired
	StateValidating       = record.StateValidating
	StatePending          = record.StatePending

	ValidationPassed  = record.ValidationPassed
	ValidationFailed  = record.ValidationFailed
	ValidationSkipped = record.ValidationSkipped

	ModeFile = record.ModeFile
	ModeExec = record.ModeExec
)

type (
	Task              = record.Task
	TaskSummary       = record.TaskSummary
	FileChange        = record.FileChange
	PathState         = record.PathState
	Undo              = record.Undo
	AppliedPaths      = record.AppliedPaths
	Rules             = record.Rules
	Validation        = record.Validation
	ValidationCommand = record.ValidationCommand
	MergeConflict     = record.MergeConflict
	LineRange         = record.LineRange
	Skipped           = record.Skipped
	RefChange         = record.RefChange
	PathStateJSON     = record.PathStateJSON
	SkippedList       = record.SkippedList
)

// StateLabel is how a state is spelled for people ("Recovery required").
func StateLabel(state string) string { return record.StateLabel(state) }

// RulesOf is the record of the capture rules o (never nil lists).
func RulesOf(o snapshot.Options) *Rules { return record.RulesOf(o) }

// Present reports whether ps describes a file (rather than no file).
func Present(ps PathState) bool { return record.Present(ps) }

// IsRegularMode reports whether m is a regular file's mode.
func IsRegularMode(m *string) bool { return record.IsRegularMode(m) }

// Path helpers for optional fields.
func StrPtr(s string) *string { return record.StrPtr(s) }
func OptStr(s string) *string { return record.OptStr(s) }
func Deref(p *string) string  { return record.Deref(p) }

// MarshalPath writes *v with its path as bytes survive JSON (see
// record.MarshalPath).
func MarshalPath[T any](v *T, path *string) ([]byte, error) { return record.MarshalPath(v, path) }

// UnmarshalPath reads data into *v and its path back, from "path_b64" when
// present (see record.UnmarshalPath).
func UnmarshalPath[T any](data []byte, v *T, path *string) error {
	return record.UnmarshalPath(data, v, path)
}

// PathB64 is a record's "path_b64", nil when it has none.
func PathB64(data []byte) (*string, error) { return record.PathB64(data) }

// QuotePath quotes a path for a message, as git does, when it would not
// read back from one line or could drive a terminal (a control character,
// C1 included, a bidirectional control, bytes that are not UTF-8, a leading
// quote): see pathenc.Quote.
func QuotePath(p string) string { return pathenc.Quote(p) }

// WorkLockName is the executor lock of a workspace, in .nudgethis: held
// by the one process (git nudge work, or a dashboard server) that runs
// its pending tasks, with that binary's version in its note.
const WorkLockName = "work.lock"

// QuarantinePrefix is where refs a task made or moved are kept.
const QuarantinePrefix = guard.QuarantinePrefix
