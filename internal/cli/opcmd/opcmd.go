// Package opcmd is the `op` command of both binaries (op log, op show, op
// undo) over one worktree's operation log (internal/oplog), and the hook
// that records each mutating command as an operation.
package opcmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/nudgethis/git-nudge/internal/age"
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/apply"
	"github.com/nudgethis/git-nudge/internal/operation"
	"github.com/nudgethis/git-nudge/internal/oplog"
	"github.com/nudgethis/git-nudge/internal/pathenc"
	"github.com/nudgethis/git-nudge/internal/proc"
)

// Cmd is `op`: the operation log.
type Cmd struct {
	Log  LogCmd  `cmd:"" help:"List this worktree's operations, newest first."`
	Show ShowCmd `cmd:"" help:"Show every change an operation recorded."`
	Undo UndoCmd `cmd:"" help:"Undo the latest operation not yet undone (each call steps one further back), or the one named."`
	Redo RedoCmd `cmd:"" help:"Re-do the operation the most recent op undo undid."`
}

// Help is the long help of op.
func (c *Cmd) Help() string {
	return `Every command of git nudge and git autodev that changes something is recorded as one operation (o1, o2, ...) in a log kept in git under refs/nudgethis-oplog/<worktree>: the refs, HEAD, index, journals and work-tree files it changed, each with its value before and after. Both binaries show and undo the same log. op undo walks back one operation per call (undos and redos themselves aside), and op redo steps forward again until a new operation is recorded. git config op.keep bounds it (default 1000 operations), and op.keepDays by age (default 30 days; 0 for no age bound).`
}

// Opener finds the repository whose log the op command works on (git
// nudge: the workspace owning a task worktree; git autodev: the work
// tree). Each binary binds its own to its parser (cli.Program.Bind); the
// op commands' Run methods receive it. A nil repository with a nil error
// means the opener said already why there is no log (git autodev outside
// a repository, with asJSON in JSON): the command ends with status 0.
type Opener func(env *cli.Env, asJSON bool) (*oplog.Repo, error)

// open finds the log (nil when the opener said why there is none).
func (o Opener) open(env *cli.Env, asJSON bool) (*oplog.Log, error) {
	r, err := o(env, asJSON)
	if r == nil || err != nil {
		return nil, err
	}
	return oplog.Open(r), nil
}

// LogCmd is `op log`.
type LogCmd struct {
	JSON bool `name:"json" help:"Print an array of {id, time, tool, args, kind, state, summary, undone_by}, newest first."`
}

// Run lists the log.
func (c *LogCmd) Run(env *cli.Env, open Opener) error {
	l, err := open.open(env, c.JSON)
	if l == nil {
		return err
	}
	ops, rerr := readAll(env, l)
	if rerr != nil {
		env.Warnf("%s\n", rerr)
	}
	if c.JSON {
		if err := env.JSON(operation.OpsJSON(ops)); err != nil {
			return err
		}
	} else {
		if len(ops) == 0 && rerr == nil {
			env.Printf("No operations yet.\n")
		}
		for _, o := range ops {
			line := fmt.Sprintf("%s  %s  git %s %s  %s", env.Paint("1", o.ID), age.Since(env.Now(), o.Time), o.Tool, pathenc.Text(pathenc.ShellJoin(o.Args)), pathenc.Text(o.Summary))
			if o.State == oplog.Pending {
				line += "  [" + pendingWord(o) + "]"
			}
			if o.UndoneBy != "" {
				line += "  (undone by " + o.UndoneBy + ")"
			}
			env.Printf("%s\n", line)
		}
	}
	if rerr != nil {
		return &cli.ExitError{Code: cli.ExitFailed, Err: rerr}
	}
	return nil
}

// readAll is the log, newest first, with pending operations (running or
// interrupted) in front.
func readAll(env *cli.Env, l *oplog.Log) ([]*oplog.Op, error) {
	return operation.ReadOps(env.Ctx, l)
}

// recoverJudge is git nudge recover's per-file answer for an interrupted
// git nudge apply or undo, so that op show says what recover and the
// dashboard say (nil for any other operation).
func recoverJudge(l *oplog.Log, o *oplog.Op, now func() time.Time) oplog.FileJudge {
	id := operation.ApplyTask(o)
	if id == "" || l.Repo.WorkTree == "" {
		return nil
	}
	return func(ctx context.Context) (map[string]string, error) {
		ws, err := nudge.OpenReadOnly(ctx, l.Repo.WorkTree, now)
		if err != nil {
			return nil, nil
		}
		files, err := apply.RecoverFiles(ctx, ws, id)
		var re *cli.Refusal
		var unknown *nudge.UnknownTaskError
		if errors.As(err, &re) || errors.As(err, &unknown) {
			return nil, nil // no apply of it started writing: the record's own values
		}
		if err != nil {
			return nil, err
		}
		m := make(map[string]string, len(files))
		for _, f := range files {
			m[f.Path] = f.Matches
		}
		return m, nil
	}
}

func pendingWord(o *oplog.Op) string {
	if oplog.Interrupted(o, proc.Gone) {
		return "Recovery required"
	}
	return "running"
}

// ShowCmd is `op show ID`.
type ShowCmd struct {
	ID   string `arg:"" predictor:"op" help:"Operation to show (o1, o2, ...)."`
	JSON bool   `name:"json" help:"Print the whole record as one JSON document."`
}

// Run prints every change of the operation.
func (c *ShowCmd) Run(k *kong.Kong, env *cli.Env, open Opener) error {
	tool := Tool(strings.TrimPrefix(k.Model.Name, "git-"))
	l, err := open.open(env, c.JSON)
	if l == nil {
		return err
	}
	ops, rerr := operation.ReadEvery(env.Ctx, l)
	o := oplog.Find(ops, c.ID)
	if o == nil {
		if rerr != nil {
			return rerr
		}
		return &cli.Refusal{What: "unknown operation " + pathenc.Quote(c.ID), Reasons: []string{"this worktree's log (" + l.Ref + ") has no such operation"}, Next: "git " + string(tool) + " op log lists them"}
	}
	var holds []oplog.Holds
	interrupted := oplog.Interrupted(o, proc.Gone)
	if interrupted {
		if holds, err = l.Status(env.Ctx, o, recoverJudge(l, o, env.Now)); err != nil {
			return err
		}
	}
	if c.JSON {
		doc := map[string]any{"op": o, "undone_by": nil, "recovery_required": interrupted}
		if o.UndoneBy != "" {
			doc["undone_by"] = o.UndoneBy
		}
		if interrupted {
			hs := []map[string]string{}
			for _, h := range holds {
				hs = append(hs, map[string]string{"change": h.What, "holds": h.Now})
			}
			doc["holds"] = hs
		}
		return env.JSON(doc)
	}
	env.Printf("%s  %s  git %s %s\n", env.Paint("1", o.ID), o.Time.Format(time.RFC3339), o.Tool, pathenc.Text(pathenc.ShellJoin(o.Args)))
	env.Printf("kind %s, %s: %s\n", o.Kind, o.State, pathenc.Text(o.Summary))
	if o.UndoneBy != "" {
		env.Printf("undone by %s\n", o.UndoneBy)
	}
	if interrupted {
		env.Printf("Recovery required: the process (pid %d) that ran it is gone; nothing is replayed. What holds now, per recorded value (before = as it was before it started):\n", o.PID)
		for _, h := range holds {
			env.Printf("  %-8s %s\n", h.Now, h.What)
		}
		return nil
	}
	for _, r := range o.Refs {
		env.Printf("  ref %s: %s -> %s\n", r.Name, val(r.Old), val(r.New))
	}
	if c := o.Index; c != nil {
		if c.Trees() {
			// Recorded as the trees of its entries (stat data aside).
			env.Printf("  index: tree %s -> tree %s\n", val(c.OldTree), val(c.NewTree))
		} else {
			env.Printf("  index: %s -> %s\n", val(c.Old), val(c.New))
		}
	}
	for _, j := range o.Journals {
		if d := j.Delta; d.Unnamed(j) {
			// Appended in place: the versions are named by digests.
			o, n := d.VersionNames()
			env.Printf("  journal %s: %s -> %s (recorded as the change: %d bytes -> %d bytes at byte %d)\n", j.File, o, n, len(d.Old), len(d.New), d.Prefix)
			continue
		}
		if d := j.Delta; d != nil {
			// Neither version is a blob of the repository.
			env.Printf("  journal %s: %s -> %s (recorded as the change: %d bytes -> %d bytes at byte %d)\n", j.File, val(j.Old), val(j.New), len(d.Old), len(d.New), d.Prefix)
			continue
		}
		env.Printf("  journal %s: %s -> %s\n", j.File, val(j.Old), val(j.New))
	}
	for _, f := range o.Files {
		env.Printf("  file %s: %s -> %s\n", pathenc.Quote(f.RawPath()), fileVal(f.Before), fileVal(f.After))
	}
	return nil
}

func val(v string) string {
	if v == "" {
		return "(absent)"
	}
	return v
}

func fileVal(f *oplog.File) string {
	if f == nil {
		return "(absent)"
	}
	return f.Mode + " " + f.Blob
}

// UndoCmd is `op undo [ID]`.
type UndoCmd struct {
	ID   string `arg:"" optional:"" predictor:"op" help:"Operation to undo; when left out, the latest one not yet undone (repeat to step further back). A named one only when no later operation changed the same refs, files or journals."`
	JSON bool   `name:"json" help:"Print {id, undoes, state, summary} as one JSON document."`
}

// Run undoes the operation.
func (c *UndoCmd) Run(k *kong.Kong, env *cli.Env, open Opener) error {
	tool := Tool(strings.TrimPrefix(k.Model.Name, "git-"))
	l, err := open.open(env, c.JSON)
	if l == nil {
		return err
	}
	target, inv, err := Undo(env.Ctx, l, string(tool), c.ID, env.Now())
	if err != nil {
		return err
	}
	if c.JSON {
		return env.JSON(UndoDocument(target, inv))
	}
	// The summary starts with "undid <id>", which the line already says.
	summary := strings.TrimPrefix(strings.TrimPrefix(inv.Summary, "undid "+target.ID), "; ")
	if summary == "" {
		env.Printf("Undid %s (%s) as %s.\n", target.ID, target.Kind, inv.ID)
	} else {
		env.Printf("Undid %s (%s) as %s: %s.\n", target.ID, target.Kind, inv.ID, pathenc.Text(summary))
	}
	if target.Kind == "drop" {
		env.Printf("The task's record and refs are back; its worktree is not (git nudge start makes a new one).\n")
	}
	env.Printf("git %s op redo re-does it; git %s op undo steps further back.\n", tool, tool)
	return nil
}

// RedoCmd is `op redo`.
type RedoCmd struct {
	JSON bool `name:"json" help:"Print {id, undoes, redoes, state, summary} as one JSON document."`
}

// Run re-does the most recently undone operation.
func (c *RedoCmd) Run(k *kong.Kong, env *cli.Env, open Opener) error {
	tool := Tool(strings.TrimPrefix(k.Model.Name, "git-"))
	l, err := open.open(env, c.JSON)
	if l == nil {
		return err
	}
	target, inv, err := Redo(env.Ctx, l, string(tool), env.Now())
	if err != nil {
		return err
	}
	if c.JSON {
		doc := UndoDocument(target, inv)
		doc["redoes"] = inv.Redoes
		return env.JSON(doc)
	}
	summary := strings.TrimPrefix(strings.TrimPrefix(inv.Summary, "redid "+inv.Redoes), "; ")
	if summary == "" {
		env.Printf("Redid %s (taking back %s) as %s.\n", inv.Redoes, target.ID, inv.ID)
	} else {
		env.Printf("Redid %s (taking back %s) as %s: %s.\n", inv.Redoes, target.ID, inv.ID, pathenc.Text(summary))
	}
	return nil
}

// Tool is the binary's short name ("nudge", "autodev"), bound by each CLI.
type Tool string

// The op log's work the commands share with the dashboard lives in
// internal/operation; these names keep the command layer's callers as
// they were.
var (
	LogDocument  = operation.LogDocument
	OpsDocument  = operation.OpsDocument
	Undo         = operation.Undo
	Redo         = operation.Redo
	UndoDocument = operation.UndoDocument
	Positionals  = operation.Positionals
)
