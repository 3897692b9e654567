//go:build unix && !linux

package proc

import "fmt"

// MinSandboxABI is the oldest Landlock ABI the sandbox accepts (Linux only).
const MinSandboxABI = 3

// SandboxABI reports that commands cannot be confined on this system.
func SandboxABI() (int, error) {
	return 0, fmt.Errorf("%w, which only Linux has", ErrNoSandbox)
}

func confine([]string) error {
	_, err := SandboxABI()
	return err
}

func confineInside(int) error {
	_, err := SandboxABI()
	return err
}
