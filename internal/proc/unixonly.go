//go:build !unix

package proc

// The suite runs on unix systems only (Linux, macOS, the BSDs): it starts
// commands in process groups, signals them, inherits flock'd descriptors
// and compares inodes. See README.md and docs/DECISIONS.md (2026-12-01,
// unix only). This line stops a build elsewhere with a readable error:
var _ = gitNudgeBuildsOnUnixOnly
