//go:build !race

package git

const raceEnabled = false
