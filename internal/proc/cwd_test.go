package proc

import (
	"syscall"
	"testing"
)

// Umask reads the mask without changing it, from /proc or from a probe
// folder where /proc cannot be read; both agree with the real mask.
func TestUmaskBothWays(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	if got := Umask(); got != 0o027 {
		t.Errorf("Umask() = %o, want 027", got)
	}
	if got := umaskByProbe(); got != 0o027 {
		t.Errorf("umaskByProbe() = %o, want 027", got)
	}
	if now := syscall.Umask(0o027); now != 0o027 {
		t.Errorf("reading the mask changed it to %o", now)
	}
}
