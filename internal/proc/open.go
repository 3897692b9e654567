package proc

import (
	"os/exec"
)

// OpenURL asks the desktop to open url in a browser (xdg-open, or open on
// macOS) and does not wait for it. It reports whether an opener was found
// and started.
func OpenURL(url string) bool {
	for _, name := range []string{"xdg-open", "open"} {
		path, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		c := exec.Command(path, url)
		if err := c.Start(); err != nil {
			continue
		}
		go func() { _ = c.Wait() }()
		return true
	}
	return false
}
