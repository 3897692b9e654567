//go:build race

package tests

// raceBuild is true when the tests (and so the binaries they run, which
// are the test binary) are built with the race detector, which makes every
// command about four times slower.
const raceBuild = true
