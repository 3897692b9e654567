package dashboard

import (
	"errors"
	"net/http"

	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/runner"
	"github.com/nudgethis/git-nudge/internal/refusal"
)

// TaskCommandPrefix is the git config section of the commands the tasks
// page can start as a task: nudge.command.<name> = <shell command>. As
// with New run, the page names a command; it never sends one.
const TaskCommandPrefix = "nudge.command."

// listTaskCommands is GET /api/nudge/commands: the configured commands
// and whether the page may start them.
func (s *Server) listTaskCommands(w http.ResponseWriter, r *http.Request) {
	ws, err := nudge.OpenReadOnly(r.Context(), s.opts.Dir, s.opts.Now)
	if err != nil {
		failed(w, err)
		return
	}
	cmds, err := configCommands(r.Context(), ws.Repo, TaskCommandPrefix)
	if err != nil {
		failed(w, err)
		return
	}
	if cmds == nil {
		cmds = []Command{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"commands": cmds, "execution": !s.opts.NoExecution})
}

// newTask is POST /api/nudge/queue/{name}: git nudge queue -m <name> --
// sh -c <command> for the command git config nudge.command.<name> holds.
// The server's executor (the same Workspace.Work as git nudge work) runs
// it within a second, or git nudge work does when it holds the queue;
// stopping the server stops it with its process group. The answer is the
// pending task's record, as git nudge queue --json prints it.
func (s *Server) newTask(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if s.opts.NoExecution {
		writeError(w, http.StatusConflict, &refusal.Refusal{What: "cannot start a task from the page",
			Reasons: []string{"the dashboard was started with --no-execution"}})
		return
	}
	ws, err := nudge.Open(r.Context(), s.opts.Dir, s.opts.Now)
	if err != nil {
		failed(w, err)
		return
	}
	cmds, err := configCommands(r.Context(), ws.Repo, TaskCommandPrefix)
	if err != nil {
		failed(w, err)
		return
	}
	cmd := findCommand(w, cmds, TaskCommandPrefix, name)
	if cmd == nil {
		return
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		writeError(w, http.StatusServiceUnavailable, errors.New("the dashboard is shutting down"))
		return
	}
	// Recorded in the operation log as the command line's git nudge queue
	// is, so op undo takes the pending task back the same way.
	command := []string{"sh", "-c", cmd.Command}
	var t *nudge.Task
	spec := Operation("nudge", "queue")
	spec.Args = append([]string{"queue", "-m", name, "--"}, command...)
	err = s.record(r, ws.Repo, spec, func() error {
		var err error
		t, err = runner.Queue(r.Context(), ws, runner.QueueOptions{Note: name, Command: command})
		return err
	})
	if err != nil {
		failed(w, err)
		return
	}
	writeJSON(w, http.StatusOK, t)
}
