package autodev

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/nudgethis/git-nudge/internal/agenthooks"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/pathenc"
)

// HookLogLimit bounds .autodev/hook.log: past it, the file is cut to its
// newest half.
const HookLogLimit = 256 << 10

// HookRequest is one call from an agent's hook.
type HookRequest struct {
	Event string // the event name given on the command line ("" if none)
	Turn  agenthooks.Turn
	// Session is the agent's conversation, kept with the checkpoint.
	Session *agenthooks.Session
}

// HookResult is what Hook did.
type HookResult struct {
	Clean      bool // nothing to record: the tree has no uncommitted change
	Checkpoint CheckpointResult
	Label      string
}

// Hook makes the checkpoint of an agent's turn: a task checkpoint
// labelled from the turn, taking the run's task and mode while a run is
// active. A clean tree records nothing (not even HEAD's commit: the hook
// fires every turn, and a turn that changed nothing is no checkpoint).
func (ws *Workspace) Hook(ctx context.Context, req HookRequest) (HookResult, error) {
	label := req.Turn.Label(req.Event)
	res := HookResult{Label: label}
	on, err := ws.Enabled(ctx)
	if err != nil {
		return res, err
	}
	if !on {
		res.Checkpoint.Outcome = Disabled
		return res, nil
	}
	dirty, err := ws.Repo.Dirty(ctx, excluded...)
	if err != nil {
		return res, err
	}
	if !dirty {
		res.Clean = true
		return res, nil
	}
	res.Checkpoint, err = ws.Checkpoint(ctx, CheckpointRequest{Post: label, FromRun: true, Session: req.Session})
	return res, err
}

// HookLogPath is .autodev/hook.log.
func (ws *Workspace) HookLogPath() string { return filepath.Join(ws.Dir, "hook.log") }

// AgentHooks installs (or removes) the hook in agent a's settings file at
// the top of this work tree.
func (ws *Workspace) AgentHooks(a agenthooks.Agent, remove, dryRun bool) (agenthooks.Change, error) {
	return a.Apply(ws.Repo.WorkTree, remove, dryRun)
}

// LogHook appends one line to .autodev/hook.log, stamped with the time,
// and keeps the file under HookLogLimit. The file is opened through an
// os.Root at the top of the work tree, so a symbolic link planted there
// cannot send the line outside it.
func (ws *Workspace) LogHook(line string) error {
	if err := ws.ensureDir(); err != nil {
		return err
	}
	root, err := os.OpenRoot(ws.Repo.WorkTree)
	if err != nil {
		return err
	}
	defer root.Close()
	name := ".autodev/hook.log"
	// The line carries what a hook payload said (event names, session
	// ids): control characters are escaped, so that no escape sequence
	// reaches whoever reads the log on a terminal.
	line = pathenc.Text(strings.ReplaceAll(strings.TrimRight(line, "\n"), "\n", " "))
	line = strings.ReplaceAll(line, "\t", " ")
	// Never blocks (a fifo there is refused, not waited on) and never
	// follows a link.
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		if fi, lerr := root.Lstat(name); lerr == nil && !fi.Mode().IsRegular() {
			return &journal.NotRegularError{Path: filepath.Join(ws.Repo.WorkTree, name), What: kindName(fi.Mode())}
		}
		return err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return err
		}
		return &journal.NotRegularError{Path: filepath.Join(ws.Repo.WorkTree, name), What: kindName(fi.Mode())}
	}
	_, werr := f.WriteString(ws.stamp() + " " + line + "\n")
	st, serr := f.Stat()
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil || serr != nil || st.Size() <= HookLogLimit {
		return errors.Join(werr, serr)
	}
	return trimLog(root, name, HookLogLimit/2)
}

// trimLog keeps the last keep bytes of the log, from a line start, and
// replaces the file atomically (a line another hook appends meanwhile may
// be lost: it is a diagnostic log).
func trimLog(root *os.Root, name string, keep int) error {
	b, err := root.ReadFile(name)
	if err != nil {
		return err
	}
	if len(b) > keep {
		b = b[len(b)-keep:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	tmp := name + ".tmp"
	root.Remove(tmp)
	if err := root.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	if err := root.Rename(tmp, name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		root.Remove(tmp)
		return err
	}
	return nil
}

// sessionTrailers are the commit trailers that name an agent's
// conversation: Autodev-Agent, Autodev-Session and Autodev-Transcript.
func sessionTrailers(s *agenthooks.Session) []string {
	if s == nil {
		return nil
	}
	var t []string
	if s.Agent != "" {
		t = append(t, "Autodev-Agent: "+oneLine(s.Agent))
	}
	t = append(t, "Autodev-Session: "+quoteTrailer(s.ID))
	if s.Transcript != "" {
		t = append(t, "Autodev-Transcript: "+quoteTrailer(s.Transcript))
	}
	return t
}

// kindName names a file mode that is not a regular file's.
func kindName(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a fifo (named pipe)"
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a folder"
	}
	return "not a regular file"
}
