package apply

import (
	"context"
	"fmt"

	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/patchfiles"
)

// sparseNext is the advice for a patch that reaches outside the sparse
// checkout.
const sparseNext = "Bring those folders into the sparse checkout (git sparse-checkout add DIR, or git sparse-checkout disable), then apply again."

// outsideCone takes out of steps the paths that the work tree's
// sparse-checkout leaves out (skip-worktree in the index). Git keeps HEAD's
// version of them whatever the work tree holds, so they are neither
// checked (they would look deleted) nor written (git would not see the
// file): each is a reason to refuse that names sparse-checkout.
func outsideCone(ctx context.Context, w *nudge.Workspace, steps []patchfiles.Step) ([]patchfiles.Step, []string, error) {
	paths := make([]string, len(steps))
	for i, s := range steps {
		paths[i] = s.Path
	}
	outside, err := w.Repo.OutsideSparseCheckout(ctx, paths)
	if err != nil || len(outside) == 0 {
		return steps, nil, err
	}
	kept := steps[:0:0]
	var reasons []string
	for _, s := range steps {
		if outside[s.Path] {
			reasons = append(reasons, fmt.Sprintf("%s is outside this work tree's sparse-checkout cone (git keeps HEAD's version of it, whatever is on disk); apply writes only inside the cone", nudge.QuotePath(s.Path)))
			continue
		}
		kept = append(kept, s)
	}
	return kept, reasons, nil
}
