package oplog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/pathenc"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/refusal"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// Refused is an undo or redo declined: what was asked, every reason, what
// to do next; nothing was changed. It is the suite's one refusal type.
type Refused = refusal.Refusal

// Undo undoes op id, or, when id is "", the latest operation not yet
// undone (undos and redos themselves aside): repeated calls walk back
// through the log, as jj undo does. The undo is recorded as an operation.
// It refuses, changing nothing, unless the record is trustworthy and every
// recorded after value still holds.
func (l *Log) Undo(ctx context.Context, id string, args []string, tool string, now time.Time) (*Op, *Op, error) {
	ops, err := l.Read(ctx)
	if err != nil {
		return nil, nil, err
	}
	var target *Op
	if id == "" {
		if len(ops) == 0 {
			return nil, nil, &Refused{What: "nothing to undo", Reasons: []string{"this worktree's operation log is empty"}}
		}
		for _, o := range ops {
			if !undoLike(o) && o.UndoneBy == "" {
				target = o
				break
			}
		}
		if target == nil {
			return nil, nil, &Refused{What: "nothing to undo", Reasons: []string{"every operation in this worktree's log is undone"},
				Next: "git " + tool + " op redo re-does the most recently undone one"}
		}
	} else if target = Find(ops, id); target == nil {
		return nil, nil, &Refused{What: "cannot undo " + id, Reasons: []string{"no operation " + id + " in this worktree's log (" + l.Ref + ")"}, Next: "git " + tool + " op log lists the operations of this worktree"}
	}
	return l.invert(ctx, ops, target, KindUndo, args, tool, now)
}

// Redo re-does the operation the most recent undo undid (an undo of an
// undo), as jj redo does. It is refused when an operation other than an
// undo or redo was recorded after that undo: the history it would
// re-do into has moved on.
func (l *Log) Redo(ctx context.Context, args []string, tool string, now time.Time) (*Op, *Op, error) {
	ops, err := l.Read(ctx)
	if err != nil {
		return nil, nil, err
	}
	target, re := redoTarget(ops, tool)
	if re != nil {
		return nil, nil, re
	}
	return l.invert(ctx, ops, target, KindRedo, args, tool, now)
}

// redoTarget is the undo a redo takes back: the newest undo not yet taken
// back, provided only undos and redos were recorded after it.
func redoTarget(ops []*Op, tool string) (*Op, *Refused) {
	const what = "nothing to redo"
	redone := false // passed undos already taken back
	for _, o := range ops {
		switch {
		case o.Kind == KindRedo && o.State == Done:
			redone = true
			continue
		case o.Kind == KindUndo && o.State == Done:
			if o.UndoneBy == "" {
				return o, nil
			}
			redone = true
			continue
		case undoLike(o):
			return nil, &Refused{What: what, Reasons: []string{fmt.Sprintf("%s (%s) did not finish (%s); git %s op show %s tells what it changed", o.ID, o.Kind, o.State, tool, o.ID)}}
		case redone:
			return nil, &Refused{What: what, Reasons: []string{"every undo recorded since " + o.ID + " has been redone"}}
		}
		for _, u := range ops {
			if u.Kind == KindUndo && u.State == Done && u.UndoneBy == "" {
				return nil, &Refused{What: what,
					Reasons: []string{fmt.Sprintf("%s (git %s %s) was recorded after the last undo: a redo never re-does past a new operation", o.ID, o.Tool, o.Kind)},
					Next:    fmt.Sprintf("git %s op undo %s re-does what %s undid, when nothing later changed the same things", tool, u.ID, u.ID)}
			}
		}
		break
	}
	if redone {
		return nil, &Refused{What: what, Reasons: []string{"every undo in this worktree's log has been redone"}}
	}
	return nil, &Refused{What: what, Reasons: []string{"no undo is waiting to be redone"}}
}

// invert records and makes the inverse of target (an undo, or a redo:
// the inverse of an undo), after every check.
func (l *Log) invert(ctx context.Context, ops []*Op, target *Op, kind string, args []string, tool string, now time.Time) (*Op, *Op, error) {
	if re, err := l.refusal(ctx, ops, target, nil, tool); err != nil || re != nil {
		if err != nil {
			return nil, nil, err
		}
		if kind == KindRedo {
			re.What = "cannot redo " + target.Undoes + " (undone by " + target.ID + ")"
		}
		return nil, nil, re
	}
	inv := &Op{Time: now.UTC(), Tool: tool, Args: args, Kind: kind, State: Pending, PID: os.Getpid(), Worktree: l.Key, Undoes: target.ID}
	if kind == KindRedo {
		inv.Redoes = target.Undoes
	}
	for _, r := range target.Refs {
		inv.Refs = append(inv.Refs, RefChange{Name: r.Name, Old: r.New, New: r.Old})
	}
	for _, f := range target.Files {
		inv.Files = append(inv.Files, FileChange{Path: f.Path, PathB64: f.PathB64, Before: f.After, After: f.Before})
	}
	for _, j := range target.Journals {
		inv.Journals = append(inv.Journals, BlobChange{File: j.File, Old: j.New, New: j.Old, Delta: j.Delta.inverse()})
	}
	if target.Index != nil {
		inv.Index = &BlobChange{File: "index", Old: target.Index.New, New: target.Index.Old, OldTree: target.Index.NewTree, NewTree: target.Index.OldTree}
	}
	inv.Pins = target.Pins
	inv.Summary = "undoing " + target.ID
	if kind == KindRedo {
		inv.Summary = "redoing " + inv.Redoes
	}
	rec := &Recording{log: l, op: inv}
	if err := l.writePending(rec); err != nil {
		return nil, nil, err
	}
	faultPoint("oplog-undo-after-pending")
	werr := l.write(ctx, inv)
	faultPoint("oplog-undo-before-append")
	inv.State = Done
	if werr != nil {
		inv.State = Failed
		inv.Error = firstLine(werr.Error())
	}
	inv.PID = 0
	inv.Summary = summary(inv)
	inv.ID = ""
	if err := l.append(ctx, inv, nil); err != nil {
		return target, inv, errors.Join(werr, err)
	}
	if err := l.removePending(rec); err != nil {
		return target, inv, errors.Join(werr, err)
	}
	return target, inv, werr
}

// checkWritable refuses before anything is written when a file to bring
// back has a folder (or a symlink on the way) where it must go.
func (l *Log) checkWritable(target *Op) error {
	t, err := worktree.Open(l.Repo.WorkTree)
	if err != nil {
		return err
	}
	defer t.Close()
	for _, f := range target.Files {
		p := f.RawPath()
		e, err := t.Lstat(p)
		if err != nil {
			return err
		}
		if e.Blocker != "" {
			return fmt.Errorf("%s cannot be put back: %s is a %s", pathenc.Quote(p), pathenc.Quote(e.Blocker), e.BlockerKind)
		}
		if f.Before != nil && (f.Before.Mode == "120000" || f.Before.Mode == "040000" || f.Before.Mode == "unreadable") {
			return fmt.Errorf("%s was a %s before; bringing it back needs manual handling", pathenc.Quote(p), f.Before.Mode)
		}
	}
	return nil
}

// write makes every "after" value of inv hold: files first (writes, then
// removals), then journals, the index, refs and HEAD; then verifies.
func (l *Log) write(ctx context.Context, inv *Op) error {
	t, err := worktree.Open(l.Repo.WorkTree)
	if err != nil {
		return err
	}
	defer t.Close()
	for _, f := range inv.Files {
		if f.After == nil {
			continue
		}
		data, err := l.Repo.ReadBlob(ctx, f.After.Blob)
		if err != nil {
			return err
		}
		if err := t.WriteFile(f.RawPath(), bytes.NewReader(data), f.After.Mode == "100755"); err != nil {
			return err
		}
	}
	for _, f := range inv.Files {
		if f.After == nil {
			if _, err := t.Remove(f.RawPath()); err != nil {
				return err
			}
		}
	}
	faultPoint("oplog-undo-after-files")
	for _, j := range inv.Journals {
		p := filepath.Join(l.Repo.WorkTree, j.File)
		if _, err := worktree.RealDir(l.Repo.WorkTree, filepath.Dir(j.File), j.New != "" || j.Delta != nil); err != nil {
			return err
		}
		if j.New == "" && j.Delta == nil {
			if err := journal.Remove(p); err != nil {
				return err
			}
			continue
		}
		data, err := l.journalAfter(ctx, j)
		if err != nil {
			return err
		}
		if err := journal.WriteBytes(p, data); err != nil {
			return err
		}
	}
	if inv.Index != nil && inv.Index.Trees() {
		if err := l.Repo.IndexFromTree(ctx, inv.Index.NewTree); err != nil {
			return err
		}
	} else if inv.Index != nil {
		var data []byte
		if inv.Index.New != "" {
			if data, err = l.Repo.ReadBlob(ctx, inv.Index.New); err != nil {
				return err
			}
		}
		if err := l.Repo.WriteIndexBytes(data); err != nil {
			return err
		}
	}
	var head *RefChange
	for i, r := range inv.Refs {
		if r.Name == "HEAD" {
			head = &inv.Refs[i]
			continue
		}
		if r.New == "" {
			if err := l.Repo.DeleteRef(ctx, r.Name, r.Old); err != nil {
				return err
			}
			continue
		}
		old := r.Old
		if old == "" {
			old = l.Repo.ZeroID()
		}
		if err := l.Repo.SetRef(ctx, git.SetRefRequest{Name: r.Name, New: r.New, Old: old, Reason: "git op undo"}); err != nil {
			return err
		}
	}
	if head != nil && head.New != "" {
		if err := l.Repo.SetHeadTarget(ctx, head.New); err != nil {
			return err
		}
	}
	holds, err := l.compare(ctx, inv, false)
	if err != nil {
		return err
	}
	var bad []string
	for _, h := range holds {
		if h.Now != "after" {
			bad = append(bad, h.What)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("after the undo these do not hold as recorded: %s", strings.Join(bad, ", "))
	}
	return nil
}

// taskOf names the task a nudge run or start worked on, as far as its
// record tells ("ID" when it does not).
func taskOf(o *Op) string {
	for _, r := range o.Refs {
		if id, ok := strings.CutPrefix(r.Name, refs.Snapshots); ok {
			return id
		}
	}
	return "ID"
}

// refusal runs every check op undo makes before changing anything, and
// changes nothing: nil when target can be undone now. cur, when set, is
// the refs and HEAD read once for many checks.
func (l *Log) refusal(ctx context.Context, ops []*Op, target *Op, cur *current, tool string) (*Refused, error) {
	what := "cannot undo " + target.ID + " (" + target.Kind + ")"
	switch {
	case target.State == Pending:
		return &Refused{What: what, Reasons: []string{"it has not finished (pending); op show " + target.ID + " tells what holds"}}, nil
	case target.UndoneBy != "":
		return &Refused{What: what, Reasons: []string{"it was already undone by " + target.UndoneBy}, Next: "git " + tool + " op redo re-does the most recently undone operation"}, nil
	case target.Kind == "run" && target.Tool == "autodev":
		// Its record also holds what the checkpoints made during the run
		// changed; those are operations of their own.
		return &Refused{What: what, Reasons: []string{"an autodev run is undone through the operations recorded inside it (its checkpoints): undo those"}}, nil
	case (target.Kind == "run" || target.Kind == "start" || target.Kind == "work" || target.Kind == "validate") && target.Tool == "nudge":
		// A long command holds no log lock while it runs, so its record
		// may also hold what other commands (or you) changed meanwhile:
		// undoing it could undo those too.
		next := "git nudge drop " + taskOf(target) + " removes the task it made; later operations are undone on their own"
		if target.Kind == "work" || target.Kind == "validate" {
			next = "git nudge drop ID removes a task; later operations are undone on their own"
		}
		return &Refused{What: what, Reasons: []string{"a git nudge " + target.Kind + " can have run alongside other commands, and its record may hold their changes too"},
			Next: next}, nil
	}
	var reasons []string
	if cur != nil && cur.later != nil {
		reasons = cur.later[target.ID]
	} else {
		reasons = laterTouches(ops, target)
	}
	if len(reasons) > 0 {
		return &Refused{What: what, Reasons: reasons, Next: "undo the later operations first (newest first)"}, nil
	}
	// The record is untrusted input: checked whole before anything else
	// looks at the work tree, and before anything is written.
	var known map[string]string
	if cur != nil {
		known = cur.types
	}
	untrusted, err := l.untrusted(ctx, target, known)
	if err != nil {
		return nil, err
	}
	if len(untrusted) > 0 {
		return &Refused{What: what + "; nothing was changed", Reasons: append([]string{"its record in the operation log is not one this suite could have written"}, untrusted...),
			Next: "Someone or something rewrote " + l.Ref + "; git " + tool + " op show " + target.ID + " shows the record. Nothing in it was acted on."}, nil
	}
	holds, err := l.compareWith(ctx, target, false, cur)
	if err != nil {
		return nil, err
	}
	var diffs []string
	for _, h := range holds {
		if h.Now != "after" {
			diffs = append(diffs, h.What+" changed since "+target.ID)
		}
	}
	// A before-state needs a file where a folder now is, or a folder where
	// a file is: refused by the writes' own checks before anything is
	// written (see check below).
	if len(diffs) > 0 {
		return &Refused{What: what, Reasons: diffs, Next: "nothing was changed; put those back as " + target.ID + " left them, or leave it"}, nil
	}
	if err := l.checkWritable(target); err != nil {
		return &Refused{What: what, Reasons: []string{err.Error()}}, nil
	}
	return nil, nil
}

// Undoable tells, for each finished operation of ops (as Read returns
// them), whether op undo would accept it now, and the reasons when not.
// It runs the same checks as Undo and changes nothing (no object is
// written either).
func (l *Log) Undoable(ctx context.Context, ops []*Op) (map[string][]string, error) {
	return l.UndoableKept(ctx, ops, nil)
}

// UndoCache keeps, from one call of UndoableKept to the next, what the
// records alone decide: which later operations touched what each
// operation changed. It is used again only for the same records in the
// same order (each named by its commit, with its state and undoing
// operation), so it answers as working it out again would. The zero
// value is ready; it is safe for concurrent use.
type UndoCache struct {
	mu    sync.Mutex
	key   string
	later map[string][]string
}

// laterOf is laterTouches of each operation of ops, by id: kept in c
// (when set) for the next call with the same records.
func (c *UndoCache) laterOf(ops []*Op) map[string][]string {
	key, keyed := recordsKey(ops)
	if c != nil && keyed {
		c.mu.Lock()
		if c.key == key && c.later != nil {
			later := c.later
			c.mu.Unlock()
			return later
		}
		c.mu.Unlock()
	}
	x := newLaterIndex(ops)
	later := make(map[string][]string, len(ops))
	for _, o := range ops {
		if o.State != Pending {
			// Clipped: the lists are shared by the calls that reuse them.
			later[o.ID] = slices.Clip(x.touches(o))
		}
	}
	if c != nil && keyed {
		c.mu.Lock()
		c.key, c.later = key, later
		c.mu.Unlock()
	}
	return later
}

// recordsKey names ops by their commits, states and undoing operations,
// in order; false when one was not read from a log commit.
func recordsKey(ops []*Op) (string, bool) {
	var b strings.Builder
	for _, o := range ops {
		if o.commit == "" {
			return "", false
		}
		b.WriteString(o.commit)
		b.WriteByte(' ')
		b.WriteString(o.ID)
		b.WriteByte(' ')
		b.WriteString(o.State)
		b.WriteByte(' ')
		b.WriteString(o.UndoneBy)
		b.WriteByte('\n')
	}
	return b.String(), true
}

// UndoableKept is Undoable, keeping in c (when set) what the records
// alone decide for the next call. Of what holds now it reads only what
// the operations that could be undone name (the refs and files they
// changed, HEAD, the index, their journals): an operation a later one
// touched is refused before its record is checked, so the cost follows
// what the log's newest operations changed, not the number of refs in
// the repository.
func (l *Log) UndoableKept(ctx context.Context, ops []*Op, c *UndoCache) (map[string][]string, error) {
	later := c.laterOf(ops)
	// The objects and refs are looked up for the operations that later
	// ones did not touch: the others are refused before their records
	// are checked.
	var cands []*Op
	var names []string
	for _, o := range ops {
		if o.State != Pending && o.UndoneBy == "" && len(later[o.ID]) == 0 {
			cands = append(cands, o)
			for _, r := range o.Refs {
				names = append(names, r.Name)
			}
		}
	}
	refs, head, err := l.Repo.RefsNamedAndHead(ctx, names, refPrefixes...)
	if err != nil {
		return nil, err
	}
	types, err := l.objectTypes(ctx, cands)
	if err != nil {
		return nil, err
	}
	cur := &current{refs: refs, head: head, types: types, later: later}
	out := map[string][]string{}
	for _, o := range ops {
		if o.State == Pending {
			continue
		}
		re, err := l.refusal(ctx, ops, o, cur, "nudge")
		if err != nil {
			return nil, err
		}
		out[o.ID] = nil
		if re != nil {
			out[o.ID] = re.Reasons
		}
	}
	return out, nil
}

// journalAfter is the bytes of j's after version: its blob, or, for a
// change recorded as a delta, rebuilt from the file as it is now, which
// must be j's before version (checked by id before and after rebuilding).
func (l *Log) journalAfter(ctx context.Context, j BlobChange) ([]byte, error) {
	if j.Delta == nil {
		return l.Repo.ReadBlob(ctx, j.New)
	}
	cur, err := journal.ReadAppendable(filepath.Join(l.Repo.WorkTree, j.File))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", j.File, err)
	}
	if j.Delta.Unnamed(j) {
		// Named by its bytes: the file must be the version the change
		// starts from (the bytes before it by their digest, the rest as
		// they are).
		if !j.Delta.holds(cur, false) {
			return nil, fmt.Errorf("%s changed since it was checked; nothing of it was written", j.File)
		}
		return j.Delta.apply(cur)
	}
	if l.Repo.BlobID(cur) != j.Old {
		return nil, fmt.Errorf("%s changed since it was checked; nothing of it was written", j.File)
	}
	data, err := j.Delta.apply(cur)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", j.File, err)
	}
	if l.Repo.BlobID(data) != j.New {
		return nil, fmt.Errorf("%s: the recorded change does not rebuild the recorded version; nothing of it was written", j.File)
	}
	return data, nil
}
