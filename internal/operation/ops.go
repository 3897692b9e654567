// Package operation is the operation log's work above the workflows:
// recording a change as an operation, the log as op log and the
// dashboard list it, and undoing or redoing an operation under the locks
// the commands take. The op command and the dashboard both use it; it
// knows nothing of command lines or HTTP.
package operation

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/oplog"
	"github.com/nudgethis/git-nudge/internal/pathenc"
	"github.com/nudgethis/git-nudge/internal/proc"
	"github.com/nudgethis/git-nudge/internal/refusal"
)

// OpJSON is the op log --json shape.
type OpJSON struct {
	ID       string    `json:"id"`
	Time     time.Time `json:"time"`
	Tool     string    `json:"tool"`
	Args     []string  `json:"args"`
	Kind     string    `json:"kind"`
	State    string    `json:"state"`
	Summary  string    `json:"summary"`
	UndoneBy *string   `json:"undone_by"`
}

func toJSON(o *oplog.Op) OpJSON {
	j := OpJSON{ID: o.ID, Time: o.Time, Tool: o.Tool, Args: o.Args, Kind: o.Kind, State: o.State, Summary: o.Summary}
	if j.Args == nil {
		j.Args = []string{}
	}
	if o.UndoneBy != "" {
		u := o.UndoneBy
		j.UndoneBy = &u
	}
	return j
}

// OpsJSON is op log --json's array for ops.
func OpsJSON(ops []*oplog.Op) []OpJSON {
	out := make([]OpJSON, 0, len(ops))
	for _, o := range ops {
		out = append(out, toJSON(o))
	}
	return out
}

// LogDocument is op log --json's array for l (the dashboard's GET
// /api/ops), with the error reading part of the log met, if any.
func LogDocument(ctx context.Context, l *oplog.Log) (any, error) {
	ops, err := ReadOps(ctx, l)
	return OpsJSON(ops), err
}

// opUndoJSON is an operation as the dashboard's GET /api/ops gives it: op
// log --json's fields, and whether op undo would accept it now (with the
// reasons when not), so the page offers Undo only where it would work.
type opUndoJSON struct {
	OpJSON
	Undoable    bool     `json:"undoable"`
	UndoRefusal []string `json:"undo_refusal"`
	// RecoveryRequired: a pending operation whose process is gone, as op
	// log marks it.
	RecoveryRequired bool `json:"recovery_required"`
}

// OpsDocument is LogDocument with each operation's undoable and
// undo_refusal (the checks of op undo, run without changing anything).
func OpsDocument(ctx context.Context, l *oplog.Log) (any, error) {
	_, doc, err := opsDocument(ctx, l, nil)
	if err != nil {
		return nil, err
	}
	return doc, nil
}

// opsDocument is OpsDocument's array and the operations it was made
// from (in the same order), keeping in undo (when set) what the records
// alone decide.
func opsDocument(ctx context.Context, l *oplog.Log, undo *oplog.UndoCache) ([]*oplog.Op, []opUndoJSON, error) {
	ops, err := ReadOps(ctx, l)
	if err != nil {
		return nil, nil, err
	}
	var finished []*oplog.Op
	for _, o := range ops {
		if o.State != oplog.Pending {
			finished = append(finished, o)
		}
	}
	checks, err := l.UndoableKept(ctx, finished, undo)
	if err != nil {
		return nil, nil, err
	}
	out := make([]opUndoJSON, 0, len(ops))
	for _, o := range ops {
		j := opUndoJSON{OpJSON: toJSON(o), UndoRefusal: []string{}}
		reasons, checked := checks[o.ID]
		switch {
		case o.State == oplog.Pending:
			// What op undo of its p<pid> says.
			j.RecoveryRequired = oplog.Interrupted(o, proc.Gone)
			j.UndoRefusal = []string{"it has not finished (pending)"}
			var re *refusal.Refusal
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
	return ops, out, nil
}

// OpsCache answers OpsDocument, encoded, for a process that asks for it
// again and again (the dashboard's GET /api/ops): what the log's records
// alone decide (which later operations touched what each one changed)
// is worked out again only when the records are not those of the last
// call, and each operation's JSON is encoded again only when it differs
// from the last call's. What holds now (refs, HEAD, the index, journals
// and files the undoable operations changed; pending records and their
// processes) is read on every call, so the answer is the one OpsDocument
// gives at that moment. The zero value is ready; it is safe for
// concurrent use.
type OpsCache struct {
	undo oplog.UndoCache

	mu  sync.Mutex
	enc map[opKey]encodedOp // each finished operation's JSON, last call
}

// opKey and the refusal's reasons name everything an operation's JSON is
// made of: its record (the commit it was read from), the operation that
// undid it, and the checks' answer.
type opKey struct {
	commit, undoneBy string
	undoable         bool
}

type encodedOp struct {
	reasons []string
	json    []byte
}

// Body is OpsDocument as JSON with no HTML escaping and a final newline
// (the dashboard's encoding of every answer).
func (c *OpsCache) Body(ctx context.Context, l *oplog.Log) ([]byte, error) {
	ops, doc, err := opsDocument(ctx, l, &c.undo)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	next := make(map[opKey]encodedOp, len(doc))
	body := make([]byte, 0, 64+len(doc)*256)
	body = append(body, '[')
	for i, j := range doc {
		if i > 0 {
			body = append(body, ',')
		}
		if ops[i].Commit() == "" {
			// A pending record: encoded each time.
			b, err := EncodeJSON(j)
			if err != nil {
				return nil, err
			}
			body = append(body, b...)
			continue
		}
		k := opKey{commit: ops[i].Commit(), undoneBy: ops[i].UndoneBy, undoable: j.Undoable}
		e, ok := c.enc[k]
		if !ok || !slices.Equal(e.reasons, j.UndoRefusal) {
			b, err := EncodeJSON(j)
			if err != nil {
				return nil, err
			}
			e = encodedOp{reasons: j.UndoRefusal, json: b}
		}
		next[k] = e
		body = append(body, e.json...)
	}
	body = append(body, ']', '\n')
	c.enc = next
	return body, nil
}

// encodeOne is v as JSON with no HTML escaping and no final newline.
func EncodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// ReadOps is the log as op log and the dashboard list it: the pending
// records of a git nudge apply or undo whose task is resolved or dropped
// are left out: they leave the list then.
func ReadOps(ctx context.Context, l *oplog.Log) ([]*oplog.Op, error) {
	ops, err := ReadEvery(ctx, l)
	var out []*oplog.Op
	for _, o := range ops {
		if o.State == oplog.Pending && oplog.Interrupted(o, proc.Gone) && resolved(ctx, l, o) {
			continue
		}
		out = append(out, o)
	}
	return out, err
}

// ReadEvery is the log with every pending record in front (op show).
func ReadEvery(ctx context.Context, l *oplog.Log) ([]*oplog.Op, error) {
	ops, err := l.Read(ctx)
	pend, perr := l.Pending()
	if err == nil {
		err = perr
	}
	return append(oplog.Unfinished(pend, ops), ops...), err
}

// ApplyTask is the task an interrupted git nudge apply or undo worked on
// ("" for any other operation).
func ApplyTask(o *oplog.Op) string {
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
	id := ApplyTask(o)
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
		return &refusal.Refusal{What: what, Reasons: []string{"an id p<N> names an operation that has not finished (N is its process id), and none is pending under " + pathenc.Quote(id) + " now"},
			Next: "git " + tool + " op log lists the operations; a finished one is undone by its o<N> id."}
	}
	cmd := "git " + p.Tool + " " + pathenc.Text(pathenc.ShellJoin(p.Args))
	if !oplog.Interrupted(p, proc.Gone) {
		return &refusal.Refusal{What: what, Reasons: []string{fmt.Sprintf("%s is %s, still running (pid %d); it gets an o<N> id once it finishes", id, cmd, p.PID)},
			Next: "Wait for it to finish, then undo it by its o<N> id (git " + tool + " op log)."}
	}
	reason := fmt.Sprintf("%s is %s, interrupted: its process (pid %d) is gone, so no finished record of it exists to undo, and an interrupted operation is never undone or replayed automatically", id, cmd, p.PID)
	if t := ApplyTask(p); t != "" {
		return &refusal.Refusal{What: what, Reasons: []string{reason},
			Next: fmt.Sprintf("git nudge recover %s tells, file by file, whether each holds its before or its after version; put the files right by hand, then git nudge drop --force %s removes the task (and this entry from op log).", t, t)}
	}
	return &refusal.Refusal{What: what, Reasons: []string{reason},
		Next: fmt.Sprintf("git %s op show %s tells, for each recorded value, whether the before or the after holds now; put things right by hand.", tool, id)}
}

// Undo is op undo's work (the command's and the dashboard's POST
// /api/ops/{id}/undo): under the log's lock, tool (nudge, autodev) undoes
// operation id, the latest not yet undone when "". A refusal is a
// *refusal.Refusal.
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
	var re *refusal.Refusal
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
		return nil, &refusal.Refusal{What: "cannot undo an operation now",
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
