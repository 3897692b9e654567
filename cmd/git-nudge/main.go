// Command git-nudge is run by git as "git nudge". See man git-nudge.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/nudgecmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := nudgecmd.Main(os.Args[1:], cli.NewProcessEnv(ctx))
	stop()
	os.Exit(code)
}
