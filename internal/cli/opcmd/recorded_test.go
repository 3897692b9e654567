package opcmd_test

import (
	"io"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/autodevcmd"
	"github.com/nudgethis/git-nudge/internal/cli/nudgecmd"
	"github.com/nudgethis/git-nudge/internal/cli/opcmd"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// operation parses args with p and returns what the selected command
// declares (ok false: not recorded).
func operation(t *testing.T, p cli.Program, args ...string) (oplog.Spec, bool) {
	t.Helper()
	env := &cli.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard}
	k, err := p.Parser(env, func(int) { t.Fatalf("%v: exited", args) })
	if err != nil {
		t.Fatal(err)
	}
	kctx, err := k.Parse(args)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	rc, ok := kctx.Selected().Target.Addr().Interface().(opcmd.Recorded)
	if !ok {
		return oplog.Spec{}, false
	}
	return rc.Operation()
}

// Each command line is recorded, or not, as its command declares: the
// commands that change something, and only the forms of them that do.
func TestCommandsDeclareTheirOperations(t *testing.T) {
	type want struct {
		kind              string // "" for not recorded
		long, leavesIndex bool
		scope             oplog.Scope
	}
	tasks, snap, ckpt := oplog.ScopeTasks, oplog.ScopeSnapshot, oplog.ScopeCheckpoints
	nudge := map[string]want{
		"snapshot":                         {"snapshot", false, true, snap},
		"start t1":                         {"start", true, true, tasks},
		"run -- true":                      {"run", true, true, tasks},
		"capture t1":                       {"capture", false, true, tasks},
		"validate t1":                      {"validate", true, true, tasks},
		"queue -- true":                    {"queue", false, true, tasks},
		"work":                             {"work", true, true, tasks},
		"drop t1":                          {"drop", false, true, tasks},
		"apply t1":                         {"apply", false, true, tasks},
		"undo t1":                          {"undo", false, true, tasks},
		"save":                             {"save", false, false, tasks},
		"pool fill":                        {"pool", false, false, tasks},
		"pool clear":                       {"pool", false, false, tasks},
		"pool list":                        {},
		"refresh t1":                       {"refresh", false, true, tasks},
		"comment t1 -m hi":                 {"comment", false, true, tasks},
		"comment t1 --list":                {},
		"prune --older-than 30d":           {"prune", false, true, tasks},
		"prune --older-than 30d --dry-run": {},
		"list":                             {},
		"show t1":                          {},
		"diff t1":                          {},
		"recover t1":                       {},
		"op log":                           {},
		"op undo":                          {},
		"dashboard --no-open":              {},
	}
	autodev := map[string]want{
		"checkpoint":                       {"checkpoint", false, false, ckpt},
		"park":                             {"park", false, false, ckpt},
		"run -- true":                      {"run", true, false, oplog.ScopeAutodevRun},
		"hook":                             {"hook", false, false, ckpt},
		"squash":                           {"squash", false, true, ckpt},
		"restore c1":                       {"restore", false, false, ckpt},
		"restore --rebuild":                {"restore", false, false, ckpt},
		"restore":                          {},
		"prune --older-than 30d":           {"prune", false, false, ckpt},
		"prune --older-than 30d --dry-run": {},
		"hooks install claude":             {"hooks", false, true, ckpt},
		"hooks uninstall gemini":           {"hooks", false, true, ckpt},
		"hooks install claude --dry-run":   {},
		"hooks install codex":              {"hooks", false, true, ckpt},
		"status":                           {},
		"op log":                           {},
	}
	for _, c := range []struct {
		p     cli.Program
		lines map[string]want
	}{{nudgecmd.Program(), nudge}, {autodevcmd.Program(), autodev}} {
		for line, w := range c.lines {
			spec, ok := operation(t, c.p, strings.Fields(line)...)
			if w.kind == "" {
				if ok {
					t.Errorf("%s %s is recorded as %+v; it changes nothing", c.p.Name, line, spec)
				}
				continue
			}
			if !ok || spec.Kind != w.kind || spec.Long != w.long || spec.LeavesIndex != w.leavesIndex || spec.Scope.NewRefs != w.scope.NewRefs || strings.Join(spec.Scope.Refs, " ") != strings.Join(w.scope.Refs, " ") || spec.Scope.Tasks != w.scope.Tasks {
				t.Errorf("%s %s: declared %+v (recorded %v), want %+v", c.p.Name, line, spec, ok, w)
			}
		}
	}
}
