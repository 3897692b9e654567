package refs_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// helperEnv makes the re-run test binary allocate one id: "allocate DIR
// OBJECT". It waits for stdin to close first, so that the parent can
// release all helpers at once.
const helperEnv = "REFS_TEST_HELPER"

func TestMain(m *testing.M) {
	if role := os.Getenv(helperEnv); role != "" {
		os.Exit(helper(strings.Fields(role)))
	}
	os.Exit(testutil.Main(m))
}

func helper(args []string) int {
	if len(args) != 3 || args[0] != "allocate" {
		fmt.Fprintln(os.Stderr, "bad helper args", args)
		return 2
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	ctx := context.Background()
	r, err := git.Discover(ctx, args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	id, err := refs.Task.Allocate(ctx, r, args[2], 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(id)
	return 0
}
