//go:build race

package gitstore

// raceEnabled: the race detector makes sync.Pool drop a share of what is
// put back, so a pool's saving cannot be measured under it.
const raceEnabled = true
