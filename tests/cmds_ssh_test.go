package tests

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	extraCmds["sshd-start"] = sshdStart
	extraCmds["killtask"] = killTask
}

// sshRemoteUser is the second local user the ssh scenarios reach.
const sshRemoteUser = "nudge-remote"

// sshdReady is the [sshd] condition: running as root with sshd, ssh,
// ssh-keygen and useradd at hand (the far side is a second local user).
// Under CI=true a missing piece fails the script instead.
func sshdReady() (bool, error) {
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root (to add the second user)")
	}
	for _, p := range []string{"/usr/sbin/sshd", "ssh", "ssh-keygen", "useradd"} {
		if _, err := exec.LookPath(p); err != nil {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return true, nil
	}
	if os.Getenv("CI") == "true" {
		return false, fmt.Errorf("the ssh scenarios need %s, and CI=true requires them", strings.Join(missing, ", "))
	}
	return false, nil
}

// sshd-start: the second user (made once), a host key and a user key,
// sshd on 127.0.0.1 on a free port (stopped when the script ends), an ssh
// on PATH that reads the script's ssh config, where host "farhost" is that
// user there (each ssh command line is added to .ssh-test/ssh.log);
// REMOTE is a fresh folder of that user's.
func sshdStart(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: sshd-start")
	}
	run := func(name string, args ...string) string {
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			ts.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	if _, err := exec.Command("id", sshRemoteUser).CombinedOutput(); err != nil {
		// "*": no password, but not locked (sshd refuses a locked one).
		run("useradd", "-m", "-s", "/bin/sh", "-p", "*", sshRemoteUser)
	}
	run("usermod", "-p", "*", sshRemoteUser)
	home := strings.TrimSpace(run("sh", "-c", "getent passwd "+sshRemoteUser+" | cut -d: -f6"))
	dir := filepath.Join(ts.Getenv("WORK"), ".ssh-test")
	ts.Check(os.MkdirAll(dir, 0o755))
	run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, "host_key"))
	run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, "id"))
	pub, err := os.ReadFile(filepath.Join(dir, "id.pub"))
	ts.Check(err)
	// In the far user's folder: sshd reads it as that user.
	// The name carries the test run's temp folder as well as the script's:
	// two test processes running the same script at once (a developer's
	// run beside another) must not share, and remove, each other's folder.
	work := ts.Getenv("WORK")
	remote := filepath.Join(home, "nudge-test-"+filepath.Base(filepath.Dir(work))+"-"+filepath.Base(work))
	run("rm", "-rf", remote)
	run("install", "-d", "-o", sshRemoteUser, remote)
	ts.Defer(func() { _ = os.RemoveAll(remote) })
	ts.Setenv("REMOTE", remote)
	keys := filepath.Join(remote, "authorized_keys")
	ts.Check(os.WriteFile(keys, pub, 0o644))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	conf := fmt.Sprintf("ListenAddress 127.0.0.1\nPort %d\nHostKey %s\nAuthorizedKeysFile %s\nStrictModes no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nAllowUsers %s\nPidFile none\nLogLevel INFO\n",
		port, filepath.Join(dir, "host_key"), keys, sshRemoteUser)
	ts.Check(os.WriteFile(filepath.Join(dir, "sshd_config"), []byte(conf), 0o644))
	ts.Check(os.MkdirAll("/run/sshd", 0o755))
	sshd := exec.Command("/usr/sbin/sshd", "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	sshd.Stderr, _ = os.Create(filepath.Join(dir, "sshd.log"))
	ts.Check(sshd.Start())
	ts.Defer(func() {
		_ = sshd.Process.Signal(syscall.SIGTERM)
		_ = sshd.Wait()
	})
	hostPub, err := os.ReadFile(filepath.Join(dir, "host_key.pub"))
	ts.Check(err)
	f := strings.Fields(string(hostPub))
	ts.Check(os.WriteFile(filepath.Join(dir, "known_hosts"), []byte(fmt.Sprintf("[127.0.0.1]:%d %s %s\n", port, f[0], f[1])), 0o644))
	client := fmt.Sprintf("Host farhost\n  HostName 127.0.0.1\n  Port %d\n  User %s\n  IdentityFile %s\n  IdentitiesOnly yes\n  UserKnownHostsFile %s\n  StrictHostKeyChecking yes\n  BatchMode yes\n",
		port, sshRemoteUser, filepath.Join(dir, "id"), filepath.Join(dir, "known_hosts"))
	ts.Check(os.WriteFile(filepath.Join(dir, "config"), []byte(client), 0o644))
	bin := filepath.Join(dir, "bin")
	ts.Check(os.MkdirAll(bin, 0o755))
	realSSH, err := exec.LookPath("ssh")
	ts.Check(err)
	ts.Check(os.WriteFile(filepath.Join(bin, "ssh"), []byte("#!/bin/sh\necho \"$*\" >> "+filepath.Join(dir, "ssh.log")+"\nexec "+realSSH+" -F "+filepath.Join(dir, "config")+" \"$@\"\n"), 0o755))
	ts.Setenv("PATH", bin+string(os.PathListSeparator)+ts.Getenv("PATH"))
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		x := exec.Command(filepath.Join(bin, "ssh"), "farhost", "true")
		out, err := x.CombinedOutput()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "sshd.log"))
			ts.Fatalf("ssh farhost true: %v\n%s\nsshd: %s", err, out, log)
		}
	}
}

// killtask ID: SIGKILL the command task ID runs (its command_pid), as a
// lost connection would end an ssh client.
func killTask(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: killtask ID")
	}
	var pid int
	for deadline := time.Now().Add(15 * time.Second); pid == 0; time.Sleep(50 * time.Millisecond) {
		b, err := os.ReadFile(ts.MkAbs(".nudgethis/tasks/" + args[0] + ".json"))
		if err == nil {
			var rec struct {
				CommandPID int `json:"command_pid"`
			}
			_ = json.Unmarshal(b, &rec)
			pid = rec.CommandPID
		}
		if pid == 0 && time.Now().After(deadline) {
			ts.Fatalf("%s records no command pid", args[0])
		}
	}
	ts.Check(syscall.Kill(pid, syscall.SIGKILL))
}
