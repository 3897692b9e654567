package git_test

import (
	"context"
	"testing"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// OpenWorktree used to report -1 for every failure; it now carries git's
// exit status like every other git child (one exit-code routine).
func TestOpenWorktreeReportsGitExitCode(t *testing.T) {
	t.Parallel()
	dir := testutil.Repo(t)
	testutil.Commit(t, dir, map[string]string{"f": "1\n"}, "one")
	r := discover(t, dir)
	outside := testutil.RealTempDir(t)
	_, err := r.OpenWorktree(context.Background(), outside)
	if err == nil {
		t.Fatal("OpenWorktree outside any repository succeeded")
	}
	if code := git.ExitCode(err); code != 128 {
		t.Errorf("ExitCode = %d, want git's 128 (err: %v)", code, err)
	}
}
