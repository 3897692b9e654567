// Command git-autodev is run by git as "git autodev". See man git-autodev.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/autodevcmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := autodevcmd.Main(os.Args[1:], cli.NewProcessEnv(ctx))
	stop()
	os.Exit(code)
}
