//go:build !linux

package git

// bigBuffer returns n zero bytes for a file about to be read whole.
func bigBuffer(n int) []byte { return make([]byte, n) }
