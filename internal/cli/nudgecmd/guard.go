package nudgecmd

import (
	"errors"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/guard"
	"github.com/nudgethis/git-nudge/internal/nudge/accept"
)

// GuardCmd is `git nudge guard`.
type GuardCmd struct {
	Accept GuardAcceptCmd `cmd:"" help:"Say that the git settings the guard put back were your own change: put them in place again."`
}

// GuardAcceptCmd is `git nudge guard accept`.
type GuardAcceptCmd struct {
	Folder string `arg:"" optional:"" placeholder:"N" help:"The quarantine folder to take back (.nudgethis/quarantine/N); default: the newest one not accepted yet."`
	JSON   bool   `name:"json" help:"Print the result as JSON."`
}

// Help is the long help.
func (c *GuardAcceptCmd) Help() string {
	return `While a task could change the repository's shared git settings (.git/config, hooks, info/exclude, info/attributes), git nudge puts back any change it finds, keeps what it found in .nudgethis/quarantine/N, and makes the suspect tasks' apply refuse. When the change was yours (a git config you ran while a task's command was still running), git nudge guard accept puts what was found in place again, records it as trusted, and takes the change out of the suspect tasks' records, so that their apply no longer refuses for it.`
}

// Run accepts the change.
func (c *GuardAcceptCmd) Run(env *cli.Env) error {
	w, err := openWorkspace(env)
	if err != nil {
		return err
	}
	res, err := accept.Guard(env.Ctx, w, c.Folder)
	if errors.Is(err, guard.ErrNothingToAccept) {
		return &cli.ExitError{Code: cli.ExitFailed, Err: err}
	}
	if err != nil {
		return err
	}
	if c.JSON {
		return env.JSON(map[string]any{"folder": res.Folder, "paths": nonNilStrings(res.Paths), "tasks": nonNilStrings(res.Tasks)})
	}
	for _, p := range res.Paths {
		env.Printf("Put back in place: %s\n", p)
	}
	for _, id := range res.Tasks {
		env.Printf("%s: no longer held back for this change.\n", id)
	}
	return nil
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
