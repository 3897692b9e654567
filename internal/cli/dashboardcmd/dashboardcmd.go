// Package dashboardcmd is the dashboard command that git nudge and git
// autodev share.
package dashboardcmd

import (
	"errors"
	"fmt"
	"time"

	"github.com/alecthomas/kong"
	"github.com/nudgethis/git-nudge/internal/autodev"
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/autodevjson"
	"github.com/nudgethis/git-nudge/internal/dashboard"
	"github.com/nudgethis/git-nudge/internal/nudge"
)

// Cmd is `git nudge dashboard` and `git autodev dashboard`: one server for
// both tools (git autodev's opens on the checkpoints page).
type Cmd struct {
	NoOpen      bool `name:"no-open" help:"Do not open a browser; only print the address."`
	Port        int  `name:"port" placeholder:"N" default:"0" help:"Port to listen on, on 127.0.0.1 (default: a free port)."`
	Stop        bool `name:"stop" help:"Stop the dashboard running for this workspace, and wait until it has."`
	NoExecution bool `name:"no-execution" help:"Start nothing: queued tasks (git nudge queue) stay pending for git nudge work, and the page's New task and New run buttons (git config nudge.command.<name>, autodev.command.<name>) are refused."`
	Max         int  `name:"max" default:"1" placeholder:"N" help:"Run up to N queued tasks at once, each on the runner it was queued for, as git nudge work --max N does (default 1)."`
}

// Help is the long help.
func (c *Cmd) Help() string {
	return `Serves a local page for this workspace: the git nudge tasks (live list, record, coloured diff per file, Apply, Undo, Save version and Drop buttons, refusals with every reason), the git autodev checkpoints (the restore list; clicking a row restores to it; disabled while a run is active), and the operation log (git nudge op log) with an Undo button per operation. Every button runs the same code, lock and journals as the command line, and is recorded in the operation log as the command would be.
Unless --no-execution is given, the server runs the workspace's queued tasks (git nudge queue) one at a time (--max N: N at a time), as git nudge work does, while it runs; when git nudge work already runs them it serves without executing and says so. Stopping the server stops a queued task that is running (its process group) before it exits; the task ends failed. The tasks page's New task buttons queue the commands of git config nudge.command.<name> (as git nudge queue -m <name> -- sh -c <command>), and the checkpoints page's New run buttons start those of autodev.command.<name> under git autodev run; the page sends only the name, never a command.
Prints "Dashboard: http://127.0.0.1:<port>/?token=<token>" and opens a browser unless --no-open is given or there is no display. It listens on 127.0.0.1 only; the token (fresh for each start) is kept by the page in its tab and sent as a header, never as a cookie, and scripts send it as "Authorization: Bearer <token>". The browser ($BROWSER, else xdg-open or open) is given a 0600 page in .nudgethis/private/, never the token itself. API requests without it get 401 (the page itself holds no data), requests naming another host get 403, and changes are accepted only by POST from the page itself.
One dashboard runs per workspace: .nudgethis/server.lock is held while it runs (naming the binary's version, so that another version refuses to change the workspace meanwhile), and a second start prints the running one's address. It runs until Ctrl-C, SIGTERM or --stop.`
}

// Run starts, finds or stops the dashboard.
func (c *Cmd) Run(k *kong.Kong, env *cli.Env) error {
	if c.Port < 0 || c.Port > 65535 {
		return cli.UsageError(fmt.Errorf("--port %d is not a port: give 1 to 65535, or 0 for a free one", c.Port))
	}
	page := "tasks"
	if k.Model.Name == "git-autodev" {
		page = "checkpoints"
		// Outside a repository autodev says so and exits 0, as everywhere.
		_, err := autodev.Open(env.Ctx, env.Dir, env.Now)
		if errors.Is(err, autodev.ErrNoRepository) || errors.Is(err, autodev.ErrNoWorkTree) {
			env.Printf("%s\n", err.Error())
			return nil
		}
		if err != nil {
			return err
		}
	}
	if c.Max < 1 {
		return cli.UsageError(fmt.Errorf("--max %d: give at least 1", c.Max))
	}
	if c.Stop {
		ws, err := nudge.OpenReadOnly(env.Ctx, env.Dir, env.Now)
		if err != nil {
			return err
		}
		run, err := dashboard.Stop(ws.Dir, 15*time.Second)
		if err != nil {
			return err
		}
		if run == nil {
			env.Printf("No dashboard runs for this workspace.\n")
			return nil
		}
		env.Printf("Stopped the dashboard on 127.0.0.1:%d (pid %d).\n", run.Port, run.PID)
		return nil
	}
	return dashboard.Serve(env.Ctx, dashboard.Options{Dir: env.Dir, Now: env.Now, Shapes: Shapes(), NoExecution: c.NoExecution, Max: c.Max},
		dashboard.ServeOptions{Port: c.Port, Page: page, Open: !c.NoOpen, Stdout: env.Stdout, Stderr: env.Stderr})
}

// Shapes are the JSON documents of git autodev's --json output, for the
// dashboard's API.
func Shapes() dashboard.Shapes {
	return dashboard.Shapes{
		List:     func(l *autodev.Listing) any { return autodevjson.List(l) },
		Status:   func(r autodev.Report) any { return autodevjson.Status(r) },
		Restore:  func(r autodev.RestoreResult) any { return autodevjson.Restore(r) },
		ListJSON: autodevjson.ListJSON(),
	}
}
