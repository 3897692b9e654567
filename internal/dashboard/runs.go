package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/nudgethis/git-nudge/internal/autodev"
	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/refusal"
)

// CommandPrefix is the git config section of the commands the checkpoints
// page can start as a run: autodev.command.<name> = <shell command>. The
// page names a command; it never sends one.
const CommandPrefix = "autodev.command."

// Command is a configured command.
type Command struct {
	Name    string `json:"name"`
	Command string `json:"command"`
}

// started is a run the page started.
type started struct {
	name    string
	signals chan os.Signal
	done    chan struct{}
}

func (s *Server) commands(r *http.Request, ws *autodev.Workspace) ([]Command, error) {
	return configCommands(r.Context(), ws.Repo, CommandPrefix)
}

// configCommands are the commands of git config <prefix><name>, by name.
func configCommands(ctx context.Context, repo *git.Repo, prefix string) ([]Command, error) {
	list, err := repo.ConfigGetRegexp(ctx, "^"+regexp.QuoteMeta(prefix))
	if err != nil {
		return nil, err
	}
	seen := map[string]int{}
	var out []Command
	for _, e := range list {
		name := strings.TrimPrefix(e.Key, prefix)
		if i, ok := seen[name]; ok {
			out[i].Command = e.Value // the last value wins, as git config --get says
			continue
		}
		seen[name] = len(out)
		out = append(out, Command{Name: name, Command: e.Value})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// listCommands is GET /api/autodev/commands.
func (s *Server) listCommands(w http.ResponseWriter, r *http.Request) {
	ws, err := s.autodev(r)
	if err != nil {
		failed(w, err)
		return
	}
	cmds, err := s.commands(r, ws)
	if err != nil {
		failed(w, err)
		return
	}
	if cmds == nil {
		cmds = []Command{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"commands": cmds, "execution": !s.opts.NoExecution})
}

// errNotStopped is the refusal of anything that needs the run stopped.
func errNotStopped(what string) error {
	return &refusal.Refusal{What: what, Reasons: []string{"only while the run is stopped"}}
}

// startRun is POST /api/autodev/run/{name}: git autodev run of the
// configured command, in the workspace, in a process group of its own,
// its output in .nudgethis/logs/dashboard-run.log. It answers once the run holds
// run.lock (or has failed to start).
func (s *Server) startRun(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if s.opts.NoExecution {
		writeError(w, http.StatusConflict, &refusal.Refusal{What: "cannot start a run from the page",
			Reasons: []string{"the dashboard was started with --no-execution"}})
		return
	}
	ws, err := s.autodev(r)
	if err != nil {
		failed(w, err)
		return
	}
	cmds, err := s.commands(r, ws)
	if err != nil {
		failed(w, err)
		return
	}
	cmd := findCommand(w, cmds, CommandPrefix, name)
	if cmd == nil {
		return
	}
	if active, _, err := ws.RunActive(); err != nil {
		failed(w, err)
		return
	} else if active {
		writeError(w, http.StatusConflict, errNotStopped("cannot start a new run: a run is active"))
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		writeError(w, http.StatusServiceUnavailable, errors.New("the dashboard is shutting down"))
		return
	}
	run := &started{name: name, signals: make(chan os.Signal, 4), done: make(chan struct{})}
	s.runs = append(s.runs, run)
	s.mu.Unlock()
	log, err := s.runLog(r)
	if err != nil {
		close(run.done)
		failed(w, err)
		return
	}
	fmt.Fprintf(log, "git autodev run -- sh -c %q (started from the dashboard at %s)\n", cmd.Command, s.opts.Now().UTC().Format(time.RFC3339))
	mode := name
	result := make(chan error, 1)
	go func() {
		defer close(run.done)
		defer log.Close()
		bg, err := autodev.Open(s.ctx, s.opts.Dir, s.opts.Now)
		if err == nil {
			var code int
			code, err = bg.Run(s.ctx, autodev.RunRequest{
				Args: []string{"sh", "-c", cmd.Command}, Mode: &mode, Dir: s.opts.Dir,
				Stdin: strings.NewReader(""), Stdout: log, Stderr: log,
				Signals: run.signals, Group: true,
			})
			if err == nil && code != 0 {
				fmt.Fprintf(log, "exit status %d\n", code)
			}
		}
		if err != nil {
			fmt.Fprintf(log, "%v\n", err)
		}
		result <- err
	}()
	// Answer once the run holds run.lock, or has ended (an error, or a
	// command so short it is already over).
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		select {
		case err := <-result:
			if err != nil {
				failed(w, err)
				return
			}
			writeJSON(w, http.StatusOK, map[string]any{"name": name, "command": cmd.Command, "started": true, "ended": true})
			return
		case <-time.After(20 * time.Millisecond):
		}
		if active, _, _ := ws.RunActive(); active {
			break
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"name": name, "command": cmd.Command, "started": true, "ended": false})
}

// stopRuns ends the runs the page started: SIGTERM to each command's
// process group (git autodev run forwards it), then waits for them, so
// that nothing the page started outlives the server.
func (s *Server) stopRuns(wait time.Duration) {
	s.mu.Lock()
	runs := append([]*started(nil), s.runs...)
	s.mu.Unlock()
	deadline := time.After(wait)
	for _, r := range runs {
		select {
		case r.signals <- syscall.SIGTERM:
		default:
		}
	}
	for _, r := range runs {
		select {
		case <-r.done:
		case <-deadline:
			return
		}
	}
}

// runLog opens .nudgethis/logs/dashboard-run.log afresh (.nudgethis is
// created as git nudge creates it, ignored by git).
func (s *Server) runLog(r *http.Request) (*os.File, error) {
	ws, err := nudge.Open(r.Context(), s.opts.Dir, s.opts.Now)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(ws.Dir, "logs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return journal.OpenFile(filepath.Join(dir, "dashboard-run.log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
}

// findCommand is the configured command called name among cmds (git config
// <prefix><name>), or nil after answering 404: the page can start only
// commands configured by name, for tasks and runs alike.
func findCommand(w http.ResponseWriter, cmds []Command, prefix, name string) *Command {
	for i := range cmds {
		if cmds[i].Name == name {
			return &cmds[i]
		}
	}
	writeError(w, http.StatusNotFound, fmt.Errorf("no command %q: git config %s%s '<command>' sets one", name, prefix, name))
	return nil
}
