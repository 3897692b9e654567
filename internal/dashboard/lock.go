package dashboard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// LockName is the file, in .nudgethis, that one running dashboard per
// workspace holds (flock: the kernel lets go of it when the process dies,
// so a crash leaves nothing to clean up).
const LockName = "server.lock"

// Running is what a running dashboard writes into its server.lock.
type Running struct {
	PID  int    `json:"pid"`
	Port int    `json:"port"`
	URL  string `json:"url"`
}

// serverLock is a held server.lock.
type serverLock struct {
	f    *os.File // flock'd
	path string
}

// acquire takes server.lock in nudgeDir without waiting. When another
// live process holds it, it returns that server's record (nil lock). The
// file is opened through journal.OpenFile: a fifo or a link
// there is an error naming it, not a wait.
func acquire(nudgeDir string) (*serverLock, *Running, error) {
	path := filepath.Join(nudgeDir, LockName)
	f, err := journal.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			break
		}
	}
	if err == nil {
		_ = f.Chmod(0o600) // the address it will hold carries the token
		return &serverLock{f: f, path: path}, nil, nil
	}
	f.Close()
	if !errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, nil, fmt.Errorf("locking %s: %w", path, err)
	}
	run, err := readRunning(path)
	return nil, run, err
}

// readRunning reads the record of the server holding the lock at path. A
// server that has just taken the lock may not have written it yet: give it
// a moment.
func readRunning(path string) (*Running, error) {
	deadline := time.Now().Add(3 * time.Second)
	for {
		var r Running
		b, err := journal.ReadRegular(path)
		var nr *journal.NotRegularError
		if errors.As(err, &nr) {
			return nil, err
		}
		if err == nil {
			b = runningRecord(b)
		}
		if err == nil && json.Unmarshal(b, &r) == nil && r.PID > 0 && r.URL != "" {
			return &r, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("a dashboard holds %s but has not said where it listens; try again in a moment", path)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// runningRecord is the JSON line of a server.lock: the last line (the
// first is the holder's note, with its binary version).
func runningRecord(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	return b
}

// write records where this server listens, after a first line naming the
// holder and its binary version (journal.VersionNote), which another
// version's commands read to refuse while this server runs. The
// file is readable by its owner only: the address carries the token.
func (l *serverLock) write(r Running) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	note := fmt.Sprintf("pid %d (%s)\n", r.PID, journal.VersionNote("git-nudge dashboard"))
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	_, err = l.f.WriteAt(append(append([]byte(note), b...), '\n'), 0)
	return err
}

// release empties the record and lets go of the lock.
func (l *serverLock) release() {
	_ = l.f.Truncate(0)
	_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	_ = l.f.Close()
}

// Find returns the dashboard running for the workspace whose .nudgethis is
// nudgeDir, or nil when none is (a server.lock no live process holds is
// left over from a crash and means nothing).
func Find(nudgeDir string) (*Running, error) {
	path := filepath.Join(nudgeDir, LockName)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	held, err := journal.Held(path) // never blocks on a fifo
	if err != nil || !held {
		return nil, err
	}
	return readRunning(path)
}

// Stop asks the dashboard running for the workspace to shut down (SIGTERM)
// and waits until it has let go of server.lock. It returns the stopped
// server's record, or nil when none was running.
func Stop(nudgeDir string, wait time.Duration) (*Running, error) {
	run, err := Find(nudgeDir)
	if err != nil || run == nil {
		return run, err
	}
	if err := syscall.Kill(run.PID, syscall.SIGTERM); err != nil {
		return run, fmt.Errorf("stopping the dashboard (pid %d): %w", run.PID, err)
	}
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		still, err := Find(nudgeDir)
		if err == nil && still == nil {
			return run, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return run, fmt.Errorf("the dashboard (pid %d) was asked to stop but still runs after %s", run.PID, wait)
}
