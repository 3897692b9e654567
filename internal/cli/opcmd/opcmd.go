// Package opcmd is the `op` command of both binaries (op log, op show, op
// undo) over one worktree's operation log (internal/oplog), and the hook
// that records each mutating command as an operation.
package opcmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/nudgethis/git-nudge/internal/age"
	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/nudge"
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

// opJSON is the op log --json shape.
type opJSON struct {
	ID       string    `json:"id"`
	Time     time.Time `json:"time"`
	Tool     string    `json:"tool"`
	Args     []string  `json:"args"`
	Kind     string    `json:"kind"`
	State    string    `json:"state"`
	Summary  string    `json:"summary"`
	UndoneBy *string   `json:"undone_by"`
}

func toJSON(o *oplog.Op) opJSON {
	j := opJSON{ID: o.ID, Time: o.Time, Tool: o.Tool, Args: o.Args, Kind: o.Kind, State: o.State, Summary: o.Summary}
	if j.Args == nil {
		j.Args = []string{}
	}
	if o.UndoneBy != "" {
		u := o.UndoneBy
		j.UndoneBy = &u
	}
	return j
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
		if err := env.JSON(logDocument(ops)); err != nil {
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

func logDocument(ops []*oplog.Op) []opJSON {
	out := make([]opJSON, 0, len(ops))
	for _, o := range ops {
		out = append(out, toJSON(o))
	}
	return out
}

// LogDocument is op log --json's array for l (the dashboard's GET
// /api/ops), with the error reading part of the log met, if any.
func LogDocument(ctx context.Context, l *oplog.Log) (any, error) {
	ops, err := readOps(ctx, l)
	return logDocument(ops), err
}

// opUndoJSON is an operation as the dashboard's GET /api/ops gives it: op
// log --json's fields, and whether op undo would accept it now (with the
// reasons when not), so the page offers Undo only where it would work.
type opUndoJSON struct {
	opJSON
	Undoable    bool     `json:"undoable"`
	UndoRefusal []string `json:"undo_refusal"`
	// RecoveryRequired: a pending operation whose process is gone, as op
	// log marks it.
	RecoveryRequired bool `json:"recovery_required"`
}

// OpsDocument is LogDocument with each operation's undoable and
// undo_refusal (the checks of op undo, run without changing anything).
func OpsDocument(ctx context.Context, l *oplog.Log) (any, error) {
	ops, err := readOps(ctx, l)
	if err != nil {
		return nil, err
	}
	var finished []*oplog.Op
	for _, o := range ops {
		if o.State != oplog.Pending {
			finished = append(finished, o)
		}
	}
	checks, err := l.Undoable(ctx, finished)
	if err != nil {
		return nil, err
	}
	out := make([]opUndoJSON, 0, len(ops))
	for _, o := range ops {
		j := opUndoJSON{opJSON: toJSON(o), UndoRefusal: []string{}}
		reasons, checked := checks[o.ID]
		switch {
		case o.State == oplog.Pending:
			// What op undo of its p<pid> says.
			j.RecoveryRequired = oplog.Interrupted(o, proc.Gone)
			j.UndoRefusal = []string{"it has not finished (pending)"}
			var re *cli.Refusal
			if errors.As(pendingRefusal(l, o.Tool, o.ID), &re) {
				j.UndoRefusal = append(re.Reasons, re.Next)
			}
		case checked && len(reasons) == 0:
			j.Undoable = true
		case checked:
			j.UndoRefusal = reasons
		}
		out = append(out, j)
	}
	return out, nil
}

// readAll is the log, newest first, with pending operations (running or
// interrupted) in front.
func readAll(env *cli.Env, l *oplog.Log) ([]*oplog.Op, error) {
	return readOps(env.Ctx, l)
}

// readOps is the log as op log and the dashboard list it: the pending
// records of a git nudge apply or undo whose task is resolved or dropped
// are left out: they leave the list then.
func readOps(ctx context.Context, l *oplog.Log) ([]*oplog.Op, error) {
	ops, err := readEvery(ctx, l)
	var out []*oplog.Op
	for _, o := range ops {
		if o.State == oplog.Pending && oplog.Interrupted(o, proc.Gone) && resolved(ctx, l, o) {
			continue
		}
		out = append(out, o)
	}
	return out, err
}

// readEvery is the log with every pending record in front (op show).
func readEvery(ctx context.Context, l *oplog.Log) ([]*oplog.Op, error) {
	ops, err := l.Read(ctx)
	pend, perr := l.Pending()
	if err == nil {
		err = perr
	}
	return append(oplog.Unfinished(pend, ops), ops...), err
}

// applyTask is the task an interrupted git nudge apply or undo worked on
// ("" for any other operation).
func applyTask(o *oplog.Op) string {
	if o.Tool != "nudge" || (o.Kind != "apply" && o.Kind != "undo") {
		return ""
	}
	if p := Positionals(o.Args); len(p) == 1 {
		return p[0]
	}
	return ""
}

// Positionals returns the arguments of a recorded command line that are
// not flags, after the subcommand's name.
func Positionals(args []string) []string {
	var out []string
	for i, a := range args {
		if i == 0 {
			continue
		}
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		out = append(out, a)
	}
	return out
}

// resolved reports whether the task of an interrupted apply or undo no
// longer needs recovery: its record is gone (dropped) or in a state other
// than applying, undoing or Recovery required (resolved).
func resolved(ctx context.Context, l *oplog.Log, o *oplog.Op) bool {
	id := applyTask(o)
	if id == "" || l.Repo.WorkTree == "" {
		return false
	}
	ws, err := nudge.OpenReadOnly(ctx, l.Repo.WorkTree, time.Now)
	if err != nil {
		return false
	}
	t, err := ws.Load(id)
	var unknown *nudge.UnknownTaskError
	if errors.As(err, &unknown) {
		return true
	}
	if err != nil {
		return false
	}
	switch t.State {
	case nudge.StateApplying, nudge.StateUndoing, nudge.StateRecoveryRequired:
		return false
	}
	return true
}

// recoverJudge is git nudge recover's per-file answer for an interrupted
// git nudge apply or undo, so that op show says what recover and the
// dashboard say (nil for any other operation).
func recoverJudge(l *oplog.Log, o *oplog.Op) oplog.FileJudge {
	id := applyTask(o)
	if id == "" || l.Repo.WorkTree == "" {
		return nil
	}
	return func(ctx context.Context) (map[string]string, error) {
		ws, err := nudge.OpenReadOnly(ctx, l.Repo.WorkTree, time.Now)
		if err != nil {
			return nil, nil
		}
		files, err := ws.RecoverFiles(ctx, id)
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

// pendingRefusal explains an op undo of a pending record's id (p<pid>):
// what it is and what to do instead.
func pendingRefusal(l *oplog.Log, tool, id string) error {
	what := "cannot undo " + pathenc.Quote(id)
	pend, _ := l.Pending()
	var p *oplog.Op
	for _, o := range pend {
		if o.ID == id {
			p = o
		}
	}
	if p == nil {
		return &cli.Refusal{What: what, Reasons: []string{"an id p<N> names an operation that has not finished (N is its process id), and none is pending under " + pathenc.Quote(id) + " now"},
			Next: "git " + tool + " op log lists the operations; a finished one is undone by its o<N> id."}
	}
	cmd := "git " + p.Tool + " " + pathenc.Text(pathenc.ShellJoin(p.Args))
	if !oplog.Interrupted(p, proc.Gone) {
		return &cli.Refusal{What: what, Reasons: []string{fmt.Sprintf("%s is %s, still running (pid %d); it gets an o<N> id once it finishes", id, cmd, p.PID)},
			Next: "Wait for it to finish, then undo it by its o<N> id (git " + tool + " op log)."}
	}
	reason := fmt.Sprintf("%s is %s, interrupted: its process (pid %d) is gone, so no finished record of it exists to undo, and an interrupted operation is never undone or replayed automatically", id, cmd, p.PID)
	if t := applyTask(p); t != "" {
		return &cli.Refusal{What: what, Reasons: []string{reason},
			Next: fmt.Sprintf("git nudge recover %s tells, file by file, whether each holds its before or its after version; put the files right by hand, then git nudge drop --force %s removes the task (and this entry from op log).", t, t)}
	}
	return &cli.Refusal{What: what, Reasons: []string{reason},
		Next: fmt.Sprintf("git %s op show %s tells, for each recorded value, whether the before or the after holds now; put things right by hand.", tool, id)}
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
	ops, rerr := readEvery(env.Ctx, l)
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
		if holds, err = l.Status(env.Ctx, o, recoverJudge(l, o)); err != nil {
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

// Undo is op undo's work (the command's and the dashboard's POST
// /api/ops/{id}/undo): under the log's lock, tool (nudge, autodev) undoes
// operation id, the latest not yet undone when "". A refusal is a
// *cli.Refusal.
func Undo(ctx context.Context, l *oplog.Log, tool, id string, now time.Time) (target, inv *oplog.Op, err error) {
	if strings.HasPrefix(id, "p") {
		// A pending record's id: never an operation to undo.
		return nil, nil, pendingRefusal(l, tool, id)
	}
	args := []string{"op", "undo"}
	if id != "" {
		args = append(args, id)
	}
	return locked(ctx, l, tool, "op undo", func() (*oplog.Op, *oplog.Op, error) { return l.Undo(ctx, id, args, tool, now) })
}

// Redo is op redo's work, under the same locks as Undo.
func Redo(ctx context.Context, l *oplog.Log, tool string, now time.Time) (target, inv *oplog.Op, err error) {
	return locked(ctx, l, tool, "op redo", func() (*oplog.Op, *oplog.Op, error) { return l.Redo(ctx, []string{"op", "redo"}, tool, now) })
}

// locked runs an undo or redo under the log's lock and the workspace's.
func locked(ctx context.Context, l *oplog.Log, tool, what string, do func() (*oplog.Op, *oplog.Op, error)) (target, inv *oplog.Op, err error) {
	lock, err := l.Lock(ctx, "git "+tool+" "+what)
	if err != nil {
		return nil, nil, err
	}
	defer lock.Release()
	release, err := holdWorkspace(ctx, l.Repo, "git "+tool+" "+what)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	target, inv, err = do()
	var re *cli.Refusal
	if errors.As(err, &re) {
		return nil, nil, re
	}
	if err != nil {
		if inv != nil {
			return nil, nil, fmt.Errorf("%s of %s (recorded as %s) failed part-way: %w; git %s op show %s tells what holds", strings.TrimPrefix(what, "op "), target.ID, inv.ID, err, tool, inv.ID)
		}
		return nil, nil, err
	}
	return target, inv, nil
}

// UndoDocument is op undo --json's document.
func UndoDocument(target, inv *oplog.Op) map[string]any {
	return map[string]any{"id": inv.ID, "undoes": target.ID, "state": inv.State, "summary": inv.Summary}
}

// Tool is the binary's short name ("nudge", "autodev"), bound by each CLI.
type Tool string

// holdWorkspace takes the locks the commands that change this work tree
// take, in their order: git nudge's workspace lock and git autodev's (each
// where its state folder exists), then the work-tree lock both share. An
// autodev run in progress refuses, as git autodev restore does.
func holdWorkspace(ctx context.Context, r *oplog.Repo, what string) (release func(), err error) {
	if r.WorkTree == "" {
		return func() {}, nil
	}
	runLock := filepath.Join(r.WorkTree, ".autodev", "run.lock")
	if active, err := journal.Held(runLock); err != nil {
		return nil, err
	} else if active {
		return nil, &cli.Refusal{What: "cannot undo an operation now",
			Reasons: []string{fmt.Sprintf("a git autodev run is active (pid %d)", journal.HolderPID(runLock))},
			Next:    "Stop the run first; op undo changes the work tree, the index and the branch."}
	}
	var held []*journal.Lock
	release = func() {
		for i := len(held) - 1; i >= 0; i-- {
			held[i].Release()
		}
	}
	for _, dir := range []string{".nudgethis", ".autodev"} {
		fi, err := os.Lstat(filepath.Join(r.WorkTree, dir))
		if err != nil || !fi.IsDir() {
			continue
		}
		lk, err := journal.Acquire(ctx, filepath.Join(r.WorkTree, dir, "lock"), 10*time.Second, what)
		if err != nil {
			release()
			return nil, err
		}
		held = append(held, lk)
	}
	wt, err := journal.Acquire(ctx, journal.WorkTreeLockPath(r.GitDir), 10*time.Second, what)
	if err != nil {
		release()
		return nil, err
	}
	held = append(held, wt)
	return release, nil
}
