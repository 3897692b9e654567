package tests

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	extraCmds["podman-remote-start"] = podmanRemoteStart
}

// podman-remote-start (after podmanconf and sshd-start): the second user
// gets the test image (saved here, loaded there) and a rootless Podman
// service on a socket of its own (stopped when the script ends);
// CONTAINER_HOST then points Podman's remote client at that socket over
// ssh (ssh://nudge-remote@127.0.0.1:PORT/SOCKET, with the script's key in
// CONTAINER_SSHKEY and the sshd's host key in $HOME/.ssh/known_hosts).
func podmanRemoteStart(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: podman-remote-start")
	}
	conf := ts.Getenv("CONTAINERS_CONF")
	remote := ts.Getenv("REMOTE")
	if conf == "" || remote == "" {
		ts.Fatalf("podman-remote-start comes after podmanconf and sshd-start")
	}
	u, err := user.Lookup(sshRemoteUser)
	ts.Check(err)
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	sshDir := filepath.Join(ts.Getenv("WORK"), ".ssh-test")
	cfg, err := os.ReadFile(filepath.Join(sshDir, "config"))
	ts.Check(err)
	m := regexp.MustCompile(`(?m)^\s*Port (\d+)`).FindSubmatch(cfg)
	if m == nil {
		ts.Fatalf("no port in %s/config", sshDir)
	}
	// The far user's runtime folder and containers.conf.
	xdg, err := os.MkdirTemp("", "nudge-remote-xdg-")
	ts.Check(err)
	ts.Defer(func() { _ = os.RemoveAll(xdg) })
	farConf := filepath.Join(remote, "containers.conf")
	b, err := os.ReadFile(conf)
	ts.Check(err)
	ts.Check(os.WriteFile(farConf, b, 0o644))
	for _, p := range []string{xdg, farConf} {
		ts.Check(os.Chown(p, uid, gid))
	}
	ts.Check(os.Chmod(xdg, 0o700))
	env := []string{"HOME=" + u.HomeDir, "USER=" + sshRemoteUser, "LOGNAME=" + sshRemoteUser, "PATH=" + os.Getenv("PATH"),
		"XDG_RUNTIME_DIR=" + xdg, "CONTAINERS_CONF=" + farConf}
	asFar := func(args ...string) *exec.Cmd {
		x := exec.Command(args[0], args[1:]...)
		x.Env, x.Dir = env, u.HomeDir
		x.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{uint32(gid)}}}
		return x
	}
	if asFar("podman", "image", "exists", PodmanTestImage).Run() != nil {
		img := filepath.Join(remote, "image.tar")
		save := exec.Command("podman", "save", "-q", "-o", img, PodmanTestImage)
		save.Env = append(os.Environ(), "CONTAINERS_CONF="+conf)
		if out, err := save.CombinedOutput(); err != nil {
			ts.Fatalf("podman save: %v\n%s", err, out)
		}
		ts.Check(os.Chmod(img, 0o644))
		if out, err := asFar("podman", "load", "-q", "-i", img).CombinedOutput(); err != nil {
			ts.Fatalf("podman load as %s: %v\n%s", sshRemoteUser, err, out)
		}
		_ = os.Remove(img)
	}
	sock := filepath.Join(xdg, "podman.sock")
	service := asFar("podman", "system", "service", "--time=0", "unix://"+sock)
	logf, err := os.Create(filepath.Join(sshDir, "podman-service.log"))
	ts.Check(err)
	service.Stdout, service.Stderr = logf, logf
	ts.Check(service.Start())
	ts.Defer(func() {
		_ = service.Process.Signal(syscall.SIGTERM)
		_ = service.Wait()
		logf.Close()
	})
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if time.Now().After(deadline) {
			out, _ := os.ReadFile(logf.Name())
			ts.Fatalf("the podman service of %s did not make %s: %s", sshRemoteUser, sock, out)
		}
	}
	home := ts.Getenv("HOME")
	ts.Check(os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	known, err := os.ReadFile(filepath.Join(sshDir, "known_hosts"))
	ts.Check(err)
	ts.Check(os.WriteFile(filepath.Join(home, ".ssh", "known_hosts"), known, 0o600))
	ts.Setenv("CONTAINER_HOST", fmt.Sprintf("ssh://%s@127.0.0.1:%s%s", sshRemoteUser, m[1], sock))
	ts.Setenv("CONTAINER_SSHKEY", filepath.Join(sshDir, "id"))
	ts.Logf("remote engine: %s", strings.TrimSpace(ts.Getenv("CONTAINER_HOST")))
}
