// Package fault is the suite's test-only crash injection, in the manner of
// git's GIT_TEST_* variables: a workflow names the points where a crash
// would leave something half done, and when an environment variable names
// one of them the process kills itself there with SIGKILL. No deferred
// function, lock release or cleanup runs, exactly as after a power cut or
// kill -9 (flock locks die with the process). Crash tests use it to check
// what the next command finds.
//
// Every point of both binaries (GIT_NUDGE_TEST_FAULT and
// GIT_AUTODEV_TEST_FAULT) is listed, with the state it leaves behind, in
// docs/RELIABILITY.md: keep that list in step with the calls.
package fault

import (
	"os"
	"sync"
)

// Var is one binary's fault variable. It is read from the process
// environment on purpose (test plumbing, not configuration), once.
type Var struct {
	name  string
	value func() string
}

// New returns the fault variable called name.
func New(name string) *Var {
	return &Var{name: name, value: sync.OnceValue(func() string { return os.Getenv(name) })}
}

// Set reports whether the variable names any point: a caller can skip
// work that only a crash test needs.
func (v *Var) Set() bool { return v.value() != "" }

// Point kills the process when the variable equals point, and returns
// otherwise.
func (v *Var) Point(point string) {
	if v.value() != point {
		return
	}
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Kill() // SIGKILL on unix, TerminateProcess on Windows
	}
	select {} // the signal is on its way
}
