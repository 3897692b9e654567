//go:build !linux

package gitindex

// UntrackedCacheFS: only Linux's filesystems are known here; elsewhere git
// status keeps no untracked cache in the stat cache copy.
func UntrackedCacheFS(string) bool { return false }
