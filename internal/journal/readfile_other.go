//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package journal

import "os"

// ReadFile is os.ReadFile here (see readfile_unix.go); buf is not used.
func ReadFile(path string, buf []byte) ([]byte, error) { return os.ReadFile(path) }
