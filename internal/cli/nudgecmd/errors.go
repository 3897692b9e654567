package nudgecmd

import "errors"

var errNoCommand = errors.New("no command given: git nudge run [--task ID] -- CMD [ARG...]")
