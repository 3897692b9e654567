package apply

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/nudgethis/git-nudge/internal/nudge"
)

// The paths of a patch that apply and undo take (git nudge apply ID --
// PATH...), and what is left of a record once some of them are undone.

// showSpecs is pathspecs for a message, from the top of the work tree.
func showSpecs(specs []string) string {
	out := make([]string, len(specs))
	for i, s := range specs {
		if strings.HasPrefix(s, ":(") {
			if _, rest, ok := strings.Cut(s, ")"); ok {
				s = rest
			}
		}
		out[i] = s
	}
	return strings.Join(out, " ")
}

// quoteAll is paths quoted for a message.
func quoteAll(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = nudge.QuotePath(p)
	}
	return out
}

// selectPaths returns the paths of t's patch that the pathspecs (from the
// top of the work tree, as Pathspecs gives them) match, or nil for no
// pathspecs (every path).
func selectPaths(ctx context.Context, w *nudge.Workspace, t *nudge.Task, specs []string) (map[string]bool, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	m := map[string]bool{}
	if t.Result == nil {
		return m, nil
	}
	changes, err := w.Repo.DiffTrees(ctx, t.Base(), *t.Result, specs...)
	if err != nil {
		return nil, fmt.Errorf("matching the paths %s: %w", strings.Join(specs, " "), err)
	}
	for _, c := range changes {
		m[c.Path] = true
	}
	return m, nil
}

// dropPaths returns list without the paths in gone.
func dropPaths(list []nudge.PathState, gone map[string]bool) []nudge.PathState {
	var out []nudge.PathState
	for _, s := range list {
		if !gone[s.Path] {
			out = append(out, s)
		}
	}
	return out
}

// dropStrings returns list without the strings in gone, sorted.
func dropStrings(list []string, gone map[string]bool) []string {
	var out []string
	for _, s := range list {
		if !gone[s] {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}
