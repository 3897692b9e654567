package dashboard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/runner"
	"github.com/nudgethis/git-nudge/internal/pathenc"
)

// ServeOptions say how Serve starts the server.
type ServeOptions struct {
	Port   int    // 0: any free port
	Page   string // "tasks" or "checkpoints": the page the address opens
	Open   bool   // open a browser on the address
	Stdout io.Writer
	Stderr io.Writer
	// Ready, when set, is called once the server answers (tests use it).
	Ready func(*Server)
}

// Serve runs the dashboard of the workspace containing opts.Dir until ctx
// is done (Ctrl-C, SIGTERM, git nudge dashboard --stop). When a dashboard
// already runs for the workspace, it prints that one's address and
// returns.
func Serve(ctx context.Context, opts Options, so ServeOptions) error {
	ws, err := nudge.Open(ctx, opts.Dir, opts.Now)
	if err != nil {
		return err
	}
	lock, other, err := acquire(ws.Dir)
	if err != nil {
		return err
	}
	if lock == nil {
		fmt.Fprintf(so.Stdout, "Dashboard: %s\n", pageURL(other.URL, so.Page))
		fmt.Fprintf(so.Stderr, "A dashboard already runs for this workspace (pid %d); git nudge dashboard --stop stops it.\n", other.PID)
		return nil
	}
	defer lock.release()
	opts.Dir = ws.Repo.WorkTree
	s, err := New(ctx, opts)
	if err != nil {
		return err
	}
	l, err := s.Listen(so.Port)
	if err != nil {
		return fmt.Errorf("listening on 127.0.0.1:%d: %w (--port picks another port; 0 picks a free one)", so.Port, err)
	}
	base := s.URL("")
	if err := lock.write(Running{PID: os.Getpid(), Port: s.port, URL: base}); err != nil {
		l.Close()
		return err
	}
	hs := s.HTTPServer()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(l) }()
	go s.warm(ctx)
	addr := s.URL(so.Page)
	fmt.Fprintf(so.Stdout, "Dashboard: %s\n", addr)
	if so.Open && os.Getenv("BROWSER") == "" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" && !isDarwin() {
		fmt.Fprintf(so.Stderr, "No display found, so no browser was opened: open the address above.\n")
	} else if so.Open {
		// Through a 0600 page in a 0700 folder: the token is never in
		// the browser's command line or environment.
		page, err := openBrowser(ws.Dir, addr)
		if page != "" {
			defer os.Remove(page)
		}
		if err != nil {
			fmt.Fprintf(so.Stderr, "Could not open a browser (%v): open the address above.\n", err)
		}
	}
	// The server runs the workspace's pending tasks, one at a
	// time, until it stops: cancelling wctx stops a running one with its
	// process group, and worked is closed once it has ended.
	wctx, stopWork := context.WithCancel(ctx)
	defer stopWork()
	worked := make(chan struct{})
	if opts.NoExecution {
		s.setExecutor(false, "--no-execution: queued tasks stay pending (git nudge work runs them)")
		close(worked)
	} else {
		go func() {
			defer close(worked)
			s.execute(wctx, ws, so.Stderr)
		}()
	}
	if so.Ready != nil {
		so.Ready(s)
	}
	select {
	case <-ctx.Done():
	case err := <-served:
		stopWork()
		<-worked
		s.Close()
		return err
	}
	// Orderly shutdown: stop the queued task running (its process group
	// is gone when Work returns), end the event streams (Shutdown would
	// wait for them), let requests in flight finish, then let go of
	// server.lock.
	stopWork()
	<-worked
	s.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	fmt.Fprintf(so.Stderr, "Dashboard stopped.\n")
	return nil
}

// execute runs the pending tasks of ws until ctx is done, up to
// Options.Max at once. While another
// executor (git nudge work) holds work.lock it serves without executing,
// says so, and tries again now and then.
func (s *Server) execute(ctx context.Context, ws *nudge.Workspace, stderr io.Writer) {
	// The executor's work is no command's: its workspace carries no
	// transaction, so nothing it writes reaches the recording of an
	// action the page records meanwhile (an op undo of that action would
	// put it back). Each action opens its own workspace, whose repository
	// carries that action's recording (operation.Record).
	ws.Repo.Tx = nil
	said := false
	for ctx.Err() == nil {
		s.setExecutor(true, "")
		_, err := runner.Work(ctx, ws, runner.WorkOptions{
			Max: max(s.opts.Max, 1), Environ: os.Environ(), Watch: executorWatch, What: "git-nudge dashboard",
			Events: func(e runner.WorkEvent) { workEvent(stderr, e) },
		})
		if ctx.Err() != nil {
			return
		}
		var busy *nudge.RefusedError
		if errors.As(err, &busy) {
			msg := strings.Join(busy.Reasons, "; ") + ": this dashboard serves the page without running them"
			s.setExecutor(false, msg)
			if !said {
				fmt.Fprintf(stderr, "Not running queued tasks: %s.\n", msg)
				said = true
			}
		} else if err != nil {
			s.setExecutor(false, "running queued tasks stopped: "+err.Error())
			fmt.Fprintf(stderr, "Running queued tasks stopped: %s; trying again shortly.\n", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(5 * executorWatch):
		}
	}
}

// workEvent says on the server's stderr what its executor did, as git
// nudge work does (the page shows it through the task list).
func workEvent(stderr io.Writer, e runner.WorkEvent) {
	line := ""
	switch e.Kind {
	case "start":
		line = e.ID + " started"
	case "skipped":
		line = e.ID + " skipped: it is no longer pending (dropped)"
	case "again":
		line = e.ID + " did not start: the workspace lock stayed held while other queued tasks ran; it is tried again"
	case "done":
		switch {
		case e.Task == nil:
			line = fmt.Sprintf("%s: %v", e.ID, e.Err)
		case e.Task.Error != nil:
			line = e.ID + " " + e.Task.State + ": " + *e.Task.Error
		default:
			line = e.ID + " " + e.Task.State
		}
	}
	if line != "" {
		fmt.Fprintf(stderr, "Queue: %s\n", pathenc.Text(line))
	}
}

// executorWatch is how often the server looks for newly queued tasks.
const executorWatch = time.Second

// pageURL is the running server's address (base carries the token) for
// page.
func pageURL(base, page string) string {
	u, err := url.Parse(base)
	if err != nil || page == "" || page == "tasks" {
		return base
	}
	q := u.Query()
	u.RawQuery = "page=" + url.QueryEscape(page) + "&token=" + url.QueryEscape(q.Get("token"))
	return u.String()
}
