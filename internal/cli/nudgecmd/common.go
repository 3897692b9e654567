package nudgecmd

import (
	"errors"
	"os"
	"strings"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/snapshot"
)

// refusal shows the workflow's refusals as the command line's own.
func refusal(err error) error {
	var tm *snapshot.TooManyUntrackedError
	if errors.As(err, &tm) {
		return &cli.Refusal{What: "cannot take a snapshot", Reasons: []string{tm.Error()}}
	}
	return refusalOf(err)
}

// openWorkspace finds the workspace the command was started in.
func openWorkspace(env *cli.Env) (*nudge.Workspace, error) {
	w, err := nudge.Open(env.Ctx, env.Dir, env.Now)
	if w != nil {
		w.Warn = env.Stderr
	}
	return w, err
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// shortID abbreviates an object id for text output.
func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// branchLabel is a task's branch for people.
func branchLabel(b *string) string {
	if b == nil {
		return "(detached HEAD)"
	}
	return strings.TrimPrefix(*b, "refs/heads/")
}
