//go:build !race

package gitstore

const raceEnabled = false
