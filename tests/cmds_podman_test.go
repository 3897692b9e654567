package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	extraCmds["podmanconf"] = podmanConfCmd
}

// podmanConf is the containers.conf the container scenarios run Podman
// with: on these machines Podman works with runc, cgroupfs and a file
// events log, and wants the ulimits spelled out.
const podmanConf = `[containers]
default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
`

// PodmanTestImage is the image the container scenarios run in.
const PodmanTestImage = "localhost/nudge-test:1"

var podmanProbe struct {
	sync.Once
	conf string
	err  error
}

// podmanReady is the [podman] condition: Podman runs containers here,
// with the containers.conf above and the test image (built from a root
// file system holding busybox with podman import, no registry, unless it
// exists). Where it cannot, the condition is false and the reason is
// printed, except under CI=true, where that fails the script.
func podmanReady() (bool, error) {
	podmanProbe.Do(func() {
		dir, err := os.MkdirTemp("", "git-nudge-podman-")
		if err != nil {
			podmanProbe.err = err
			return
		}
		podmanProbe.conf = filepath.Join(dir, "containers.conf")
		if err := os.WriteFile(podmanProbe.conf, []byte(podmanConf), 0o644); err != nil {
			podmanProbe.err = err
			return
		}
		podmanProbe.err = buildImage(dir, podmanProbe.conf, PodmanTestImage)
	})
	if err := podmanProbe.err; err != nil {
		if os.Getenv("CI") == "true" {
			return false, fmt.Errorf("podman cannot run containers here, and CI=true requires it: %v", err)
		}
		fmt.Fprintf(os.Stderr, "podman cannot run containers here: %v\n", err)
		return false, nil
	}
	return true, nil
}

// podmanconf: point Podman at the containers.conf the [podman] condition
// wrote (CONTAINERS_CONF).
func podmanConfCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: podmanconf")
	}
	if podmanProbe.conf == "" {
		ts.Fatalf("podmanconf comes after [!podman] skip")
	}
	ts.Setenv("CONTAINERS_CONF", podmanProbe.conf)
}

func buildImage(work, conf, name string) error {
	podman, err := exec.LookPath("podman")
	if err != nil {
		return fmt.Errorf("podman is not installed (Debian: apt-get install podman runc busybox-static)")
	}
	run := func(args ...string) (string, error) {
		x := exec.Command(podman, args...)
		x.Env = append(os.Environ(), "CONTAINERS_CONF="+conf)
		out, err := x.CombinedOutput()
		if err != nil {
			return string(out), fmt.Errorf("podman %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		return string(out), nil
	}
	if _, err := run("image", "exists", name); err != nil {
		busybox, err := exec.LookPath("busybox")
		if err != nil {
			return fmt.Errorf("busybox is not installed (Debian: apt-get install busybox-static)")
		}
		list, err := exec.Command(busybox, "--list").Output()
		if err != nil {
			return fmt.Errorf("busybox --list: %v", err)
		}
		root := filepath.Join(work, ".rootfs")
		for _, d := range []string{"bin", "tmp", "etc", "proc", "sys", "dev"} {
			if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
				return err
			}
		}
		_ = os.Chmod(filepath.Join(root, "tmp"), 0o1777)
		b, err := os.ReadFile(busybox)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(root, "bin", "busybox"), b, 0o755); err != nil {
			return err
		}
		for _, applet := range strings.Fields(string(list)) {
			if applet != "busybox" {
				_ = os.Symlink("busybox", filepath.Join(root, "bin", applet))
			}
		}
		tarball := filepath.Join(work, ".rootfs.tar")
		if out, err := exec.Command("tar", "-C", root, "-cf", tarball, ".").CombinedOutput(); err != nil {
			return fmt.Errorf("tar: %v: %s", err, out)
		}
		if _, err := run("import", "-q", "--change", "ENV=PATH=/bin", tarball, name); err != nil {
			return err
		}
	}
	if _, err := run("run", "--rm", "--network", "none", name, "true"); err != nil {
		return err
	}
	return nil
}
