package autodevcmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/agenthooks"
	"github.com/nudgethis/git-nudge/internal/autodev"
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// HookCmd is `git autodev hook`, run by an agent's hook.
type HookCmd struct {
	Event   string   `placeholder:"NAME" help:"Name of the hook event, used when the payload names none; it labels the checkpoint when the payload has no prompt or message either."`
	Agent   string   `placeholder:"AGENT" help:"The agent that runs the hook (claude, codex, gemini, cursor), kept with the checkpoint with the payload's session id so that restore can say how to resume the conversation; by default told from the payload and the event."`
	Payload []string `arg:"" optional:"" name:"payload" help:"The hook payload as JSON (Codex CLI's notify passes it as the last argument); without it, the payload is read from stdin."`
}

// Help is the long help.
func (c *HookCmd) Help() string {
	return `Meant to be run by a coding agent's hook at the end of every turn (see git autodev hooks install). It reads the hook's JSON payload from the last argument, or else from stdin (Claude Code, Codex CLI notify, Gemini CLI and Cursor shapes; unknown fields are ignored, and a payload that is not JSON still gives a checkpoint), and makes a task checkpoint labelled with the first line of the turn's prompt, else of the agent's last message, else with the event name. While a run is active the checkpoint takes the run's task and mode. A tree with no uncommitted change records nothing.

A hook must never break the agent: git autodev hook exits 0 on everything but a usage error. It prints nothing on stdout (agents read a hook's stdout); what it did, and any error, goes to stderr, and checkpoints and errors are also logged in .autodev/hook.log (the newest 256 KiB are kept). Outside a git repository it says so on stderr and exits 0.

The agent's session id (and transcript path) from the payload is kept with the checkpoint (in .autodev/checkpoints.json and as Autodev-Session and Autodev-Transcript trailers), and git autodev restore then prints the command that reopens that conversation (claude --resume ID, codex resume ID, gemini --resume ID, agent --resume ID for Cursor).`
}

// maxPayload bounds what is read of a payload; stdinWait bounds how long
// the hook waits for an agent that leaves stdin open without writing.
const (
	maxPayload = 8 << 20
	stdinWait  = 3 * time.Second
)

// Operation declares the command for the operation log (opcmd.Recorded): an
// agent's hook runs on every turn, and is recorded only when it changed
// something (made a checkpoint).
func (c *HookCmd) Operation() (oplog.Spec, bool) {
	return oplog.Spec{Kind: "hook", Scope: oplog.ScopeCheckpoints, DropEmpty: true}, true
}

// Run makes the checkpoint; it never fails the agent.
func (c *HookCmd) Run(env *cli.Env) (err error) {
	defer func() {
		if r := recover(); r != nil {
			env.Warnf("git autodev hook: internal error: %v\n", r)
			err = nil
		}
	}()
	var data []byte
	if n := len(c.Payload); n > 0 {
		data = []byte(c.Payload[n-1])
	} else {
		data = readStdin(env.Stdin)
	}
	turn := agenthooks.ParsePayload(data)
	ws, oerr := autodev.Open(env.Ctx, env.Dir, env.Now)
	if isOutside(oerr) && filepath.IsAbs(turn.Cwd) && turn.Cwd != env.Dir {
		// Codex CLI's notify may run outside the session's folder: the
		// payload's cwd says where the agent worked.
		if fi, serr := os.Stat(turn.Cwd); serr == nil && fi.IsDir() {
			if w, e := autodev.Open(env.Ctx, turn.Cwd, env.Now); e == nil {
				ws, oerr = w, nil
			}
		}
	}
	if isOutside(oerr) {
		// Never on stdout: agents read a hook's stdout (Gemini CLI and
		// Codex take it as JSON).
		env.Warnf("git autodev hook: %s\n", oerr.Error())
		return nil
	}
	if oerr != nil {
		env.Warnf("git autodev hook: %v\n", oerr)
		return nil
	}
	event := c.Event
	if event == "" {
		event = turn.Event
	}
	logf := func(format string, a ...any) {
		msg := fmt.Sprintf(format, a...)
		if lerr := ws.LogHook(eventTag(event) + msg); lerr != nil {
			env.Warnf("git autodev hook: could not write .autodev/hook.log: %v\n", lerr)
		}
	}
	if turn.Garbage {
		env.Warnf("git autodev hook: the payload is not a JSON object; the checkpoint is labelled with the event name\n")
	}
	session := agenthooks.SessionOf(turn, strings.ToLower(c.Agent), event)
	res, herr := ws.Hook(env.Ctx, autodev.HookRequest{Event: event, Turn: turn, Session: session})
	if herr != nil {
		env.Warnf("git autodev hook: no checkpoint: %v\n", herr)
		logf("error: no checkpoint: %v", herr)
		return nil
	}
	if turn.Garbage && !res.Clean {
		logf("note: the payload was not a JSON object (%d bytes)", len(data))
	}
	cp := res.Checkpoint
	switch {
	case res.Clean:
		env.Warnf("git autodev hook: nothing to checkpoint: the work tree has no uncommitted change\n")
	case cp.Outcome == autodev.Committed || cp.Outcome == autodev.RecordedHead || cp.Outcome == autodev.Adopted:
		msg := checkpointMessage(cp)
		env.Warnf("git autodev hook: %s\n", msg)
		logf("%s", msg)
	default:
		env.Warnf("git autodev hook: %s\n", checkpointMessage(cp))
	}
	if l := autodev.LeftOutLine(cp.LeftOut); l != "" {
		env.Warnf("git autodev hook: %s\n", l)
		logf("%s", l)
	}
	if cp.Recovered != nil {
		logf("recorded %s (an interrupted checkpoint)", entryLine(*cp.Recovered))
	}
	if cp.IndexWarning != nil {
		env.Warnf("git autodev hook: warning: the checkpoint is committed, but the index could not be updated to match it (%v); run git reset -q to make it match HEAD\n", cp.IndexWarning)
		logf("warning: index not updated: %v", cp.IndexWarning)
	}
	return nil
}

func eventTag(event string) string {
	if event == "" {
		return ""
	}
	return "[" + strings.Join(strings.Fields(event), " ") + "] "
}

func isOutside(err error) bool {
	return errors.Is(err, autodev.ErrNoRepository) || errors.Is(err, autodev.ErrNoWorkTree)
}

// readStdin reads the payload from stdin: nothing from a terminal, at most
// maxPayload bytes, and only as long as stdinWait (an agent that keeps
// stdin open without writing must not hang its own hook).
func readStdin(r io.Reader) []byte {
	if r == nil {
		return nil
	}
	if f, ok := r.(*os.File); ok && cli.IsTerminal(f) {
		return nil
	}
	done := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(r, maxPayload))
		done <- b
		io.Copy(io.Discard, r) // let the writer finish instead of failing on a closed pipe
	}()
	select {
	case b := <-done:
		return b
	case <-time.After(stdinWait):
		return nil
	}
}

// HooksCmd is `git autodev hooks`.
type HooksCmd struct {
	Install   HooksInstallCmd   `cmd:"" help:"Add the checkpoint hook to an agent's settings (claude, codex, gemini, cursor)."`
	Uninstall HooksUninstallCmd `cmd:"" help:"Remove exactly what hooks install added."`
}

// HooksInstallCmd is `git autodev hooks install`.
type HooksInstallCmd struct {
	Agent  string `arg:"" enum:"claude,codex,gemini,cursor" help:"The agent: claude, codex, gemini or cursor."`
	DryRun bool   `name:"dry-run" help:"Show what would change without writing anything."`
	JSON   bool   `name:"json" help:"Print the result as JSON."`
}

// Help is the long help.
func (c *HooksInstallCmd) Help() string {
	return `Makes the agent run git autodev hook at the end of every turn, so each turn becomes a checkpoint. The hook is merged into the agent's project settings at the top of the work tree: claude: .claude/settings.json (a Stop hook); codex: .codex/hooks.json (a Stop hook; Codex asks once to trust a new project hook, see /hooks in Codex); gemini: .gemini/settings.json (an AfterAgent hook); cursor: .cursor/hooks.json (a stop hook). Every other setting, the key order and the file's indentation stay as they were; the added lines are printed. Running it again changes nothing. A settings file that is not valid JSON (Gemini's may have comments) is refused and left as it is.`
}

// Operation declares the command for the operation log (opcmd.Recorded).
func (c *HooksInstallCmd) Operation() (oplog.Spec, bool) { return hooksOperation(c.Agent, c.DryRun) }

// Run installs the hook.
func (c *HooksInstallCmd) Run(env *cli.Env) error {
	return runHooks(env, c.Agent, false, c.DryRun, c.JSON)
}

// HooksUninstallCmd is `git autodev hooks uninstall`.
type HooksUninstallCmd struct {
	Agent  string `arg:"" enum:"claude,codex,gemini,cursor" help:"The agent: claude, codex, gemini or cursor."`
	DryRun bool   `name:"dry-run" help:"Show what would change without writing anything."`
	JSON   bool   `name:"json" help:"Print the result as JSON."`
}

// Help is the long help.
func (c *HooksUninstallCmd) Help() string {
	return `Removes the hook git autodev hooks install added: its entry, and the lists and objects that only held it. A settings file install created and that holds nothing else is removed. Everything else in the file stays byte for byte.`
}

// Operation declares the command for the operation log (opcmd.Recorded).
func (c *HooksUninstallCmd) Operation() (oplog.Spec, bool) { return hooksOperation(c.Agent, c.DryRun) }

// hooksOperation is hooks install's and uninstall's declaration: the
// agent's project settings file is the one file they edit (an agent with
// none has nothing edited); a dry run changes nothing.
func hooksOperation(agent string, dryRun bool) (oplog.Spec, bool) {
	a, ok := agenthooks.Find(agent)
	if dryRun || !ok || a.File == "" {
		return oplog.Spec{}, false
	}
	return oplog.Spec{Kind: "hooks", Scope: oplog.ScopeCheckpoints, LeavesIndex: true, Paths: []string{a.File}}, true
}

// Run removes the hook.
func (c *HooksUninstallCmd) Run(env *cli.Env) error {
	return runHooks(env, c.Agent, true, c.DryRun, c.JSON)
}

func runHooks(env *cli.Env, name string, remove, dryRun, asJSON bool) error {
	ws, err := open(env, asJSON)
	if ws == nil {
		return err
	}
	a, ok := agenthooks.Find(name)
	if !ok {
		return cli.UsageError(fmt.Errorf("unknown agent %q: use one of %s", name, agenthooks.Names()))
	}
	ch, err := ws.AgentHooks(a, remove, dryRun)
	if err != nil {
		return err
	}
	if asJSON {
		return env.JSON(map[string]any{
			"agent": a.Name, "file": ch.File, "event": a.Event, "command": a.Command(),
			"changed": ch.Changed, "created": ch.Created, "removed_file": ch.Removed,
			"dry_run": dryRun, "added": ch.Added, "removed": ch.Cut,
		})
	}
	would := func(done, will string) string {
		if dryRun {
			return will
		}
		return done
	}
	what := fmt.Sprintf("a hook on %s that runs %s", a.Event, a.Command())
	switch {
	case !ch.Changed && !remove:
		env.Printf("%s already has %s; nothing changed.\n", ch.File, what)
	case !ch.Changed:
		env.Printf("%s has no hook on %s running %s; nothing changed.\n", ch.File, a.Event, a.Command())
	case !remove && ch.Created:
		env.Printf("%s %s with %s:\n", would("Created", "Would create"), ch.File, what)
		printLines(env, "+ ", ch.Added)
	case !remove:
		env.Printf("%s %s to %s:\n", would("Added", "Would add"), what, ch.File)
		printLines(env, "+ ", ch.Added)
	case ch.Removed:
		env.Printf("%s %s: install had created it and it held nothing else.\n", would("Removed", "Would remove"), ch.File)
	default:
		env.Printf("%s %s from %s:\n", would("Removed", "Would remove"), what, ch.File)
		printLines(env, "- ", ch.Cut)
	}
	if !remove && ch.Changed && !dryRun {
		env.Printf("%s now checkpoints every turn; the hooks log to .autodev/hook.log.\n", a.Title)
	}
	return nil
}

func printLines(env *cli.Env, mark, text string) {
	text = strings.TrimLeft(strings.ReplaceAll(text, "\r\n", "\n"), ",")
	for _, l := range strings.Split(strings.Trim(text, "\n"), "\n") {
		if strings.TrimSpace(l) != "" {
			env.Printf("%s%s\n", mark, l)
		}
	}
}
