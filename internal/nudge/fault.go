package nudge

import (
	"os"
	"sync"
)

// FaultEnv names the test-only variable that makes git-nudge die at a named
// point, so that crash tests can check what the next command finds. When
// GIT_NUDGE_TEST_FAULT equals a point's name, the process sends itself
// SIGKILL there: no deferred function, no lock release, no cleanup runs,
// exactly like a power cut or kill -9 (the flock dies with the process).
//
// Points of apply (undo has the same four, spelled undo-...):
//
//	apply-after-journal      the record says applying, with its undo record;
//	                         no work-tree file touched yet
//	apply-after-first-write  the first file of the patch written or removed
//	apply-after-last-write   every file written and removed; not verified
//	apply-before-final       verified; the applied record not yet written
//
// Points of save:
//
//	save-after-journal       saves.json holds the entry as saving; the branch
//	                         has not moved
//	save-after-ref           the branch points at the new commit; the index
//	                         and the task records are not updated yet
//	save-after-index         the index entries are updated; the task records
//	                         and the journal entry are not
//
// The variable is read from the process environment on purpose (it is test
// plumbing, not configuration), once.
const FaultEnv = "GIT_NUDGE_TEST_FAULT"

var faultName = sync.OnceValue(func() string { return os.Getenv(FaultEnv) })

// faultPoint kills the process when the fault variable names point.
func faultPoint(point string) {
	if faultName() != point {
		return
	}
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Kill() // SIGKILL on unix
	}
	select {} // the signal is on its way
}
