package oplog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/pathenc"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// RefusedError is an undo refused with every reason; nothing was changed.
type RefusedError struct {
	What    string
	Reasons []string
	Next    string
}

func (e *RefusedError) Error() string {
	return e.What + ": " + strings.Join(e.Reasons, "; ")
}

// Holds reports, for each recorded change of op, whether its before or
// after value holds now ("before", "after", "neither").
type Holds struct {
	What string
	Now  string
}

// compare lists, for each change, what holds now.
func (l *Log) compare(ctx context.Context, op *Op, pending bool) ([]Holds, error) {
	return l.compareWith(ctx, op, pending, nil)
}

func (l *Log) compareWith(ctx context.Context, op *Op, pending bool, now *current) ([]Holds, error) {
	var out []Holds
	if now == nil {
		refs, head, err := l.Repo.RefsAndHead(ctx, refPrefixes...)
		if err != nil {
			return nil, err
		}
		now = &current{refs: refs, head: head}
	}
	cur, head := now.refs, now.head
	which := func(now, old, new string, pending bool) string {
		switch {
		case !pending && now == new:
			return "after"
		case now == old:
			return "before"
		}
		return "neither"
	}
	for _, r := range op.Refs {
		now := cur[r.Name]
		if r.Name == "HEAD" {
			now = head
		}
		out = append(out, Holds{What: "ref " + r.Name, Now: which(now, r.Old, r.New, pending)})
	}
	for _, j := range op.Journals {
		now := ""
		if b, err := journal.ReadRegular(filepath.Join(l.Repo.WorkTree, j.File)); err == nil {
			now = l.Repo.BlobID(b)
		}
		out = append(out, Holds{What: "journal " + j.File, Now: which(now, j.Old, j.New, pending)})
	}
	if op.Index != nil && op.Index.Trees() {
		now := ""
		if ix, err := l.Repo.ReadIndexFile(); err == nil && ix.Plain {
			now, _ = l.indexTree(ctx, ix)
		}
		out = append(out, Holds{What: "index", Now: which(now, op.Index.OldTree, op.Index.NewTree, pending)})
	} else if op.Index != nil {
		now := ""
		if b, err := l.Repo.ReadIndexBytes(); err == nil && b != nil {
			now = l.Repo.BlobID(b)
		}
		out = append(out, Holds{What: "index", Now: which(now, op.Index.Old, op.Index.New, pending)})
	}
	var paths []string
	for _, f := range op.Files {
		paths = append(paths, f.RawPath())
	}
	nowFiles := map[string]*File{}
	if err := l.readFilesNoWrite(ctx, paths, nowFiles); err != nil {
		return nil, err
	}
	for _, f := range op.Files {
		n := nowFiles[f.RawPath()]
		h := "neither"
		switch {
		case !pending && sameFile(n, f.After):
			h = "after"
		case sameFile(n, f.Before):
			h = "before"
		}
		out = append(out, Holds{What: "file " + pathenc.Quote(f.RawPath()), Now: h})
	}
	return out, nil
}

// readFilesNoWrite is readFiles without writing blobs (ids computed
// here): a check changes nothing, not even the object store.
func (l *Log) readFilesNoWrite(ctx context.Context, paths []string, into map[string]*File) error {
	return l.readFilesWrite(ctx, paths, into, false)
}

// Status reports what holds now for each change of op (op show of an
// interrupted operation).
func (l *Log) Status(ctx context.Context, op *Op) ([]Holds, error) {
	// An undo's pending record knows its after values (the inverse of
	// what it undoes): each is told as it holds.
	return l.compare(ctx, op, op.State == Pending && op.Kind != KindUndo)
}

// Interrupted reports whether op is pending and its process is gone.
func Interrupted(op *Op, gone func(int) bool) bool {
	return op.State == Pending && (op.PID == 0 || gone(op.PID))
}

// Undo undoes op id ("" = the latest operation) and records the undo as an
// operation. It refuses, changing nothing, unless every recorded after
// value still holds.
func (l *Log) Undo(ctx context.Context, id string, args []string, tool string, now time.Time) (*Op, *Op, error) {
	ops, err := l.Read(ctx)
	if err != nil {
		return nil, nil, err
	}
	if len(ops) == 0 && id == "" {
		return nil, nil, &RefusedError{What: "nothing to undo", Reasons: []string{"this worktree's operation log is empty"}}
	}
	var target *Op
	if id == "" {
		target = ops[0]
	} else {
		if target = Find(ops, id); target == nil {
			return nil, nil, &RefusedError{What: "cannot undo " + id, Reasons: []string{"no operation " + id + " in this worktree's log (" + l.Ref + ")"}, Next: "git nudge op log lists the operations of this worktree"}
		}
	}
	if re, err := l.refusal(ctx, ops, target, nil); err != nil || re != nil {
		if err != nil {
			return nil, nil, err
		}
		return nil, nil, re
	}
	inv := &Op{Time: now.UTC(), Tool: tool, Args: args, Kind: KindUndo, State: Pending, PID: os.Getpid(), Worktree: l.Key, Undoes: target.ID}
	for _, r := range target.Refs {
		inv.Refs = append(inv.Refs, RefChange{Name: r.Name, Old: r.New, New: r.Old})
	}
	for _, f := range target.Files {
		inv.Files = append(inv.Files, FileChange{Path: f.Path, PathB64: f.PathB64, Before: f.After, After: f.Before})
	}
	for _, j := range target.Journals {
		inv.Journals = append(inv.Journals, BlobChange{File: j.File, Old: j.New, New: j.Old})
	}
	if target.Index != nil {
		inv.Index = &BlobChange{File: "index", Old: target.Index.New, New: target.Index.Old, OldTree: target.Index.NewTree, NewTree: target.Index.OldTree}
	}
	inv.Pins = target.Pins
	inv.Summary = "undoing " + target.ID
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

// laterTouches names the later operations that changed any ref, file or
// journal of target.
func laterTouches(ops []*Op, target *Op) []string {
	tn, _ := Number(target.ID)
	keys := touched(target)
	var reasons []string
	for _, o := range ops {
		n, _ := Number(o.ID)
		if n <= tn || o.UndoneBy != "" {
			continue
		}
		for k := range touched(o) {
			if keys[k] {
				reasons = append(reasons, fmt.Sprintf("later operation %s (%s) also changed %s", o.ID, o.Kind, k))
				break
			}
		}
	}
	return reasons
}

func touched(o *Op) map[string]bool {
	m := map[string]bool{}
	for _, r := range o.Refs {
		m["ref "+r.Name] = true
	}
	for _, f := range o.Files {
		m["file "+pathenc.Quote(f.RawPath())] = true
	}
	for _, j := range o.Journals {
		m["journal "+j.File] = true
	}
	if o.Index != nil {
		m["the index"] = true
	}
	return m
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
		if _, err := worktree.RealDir(l.Repo.WorkTree, filepath.Dir(j.File), j.New != ""); err != nil {
			return err
		}
		if j.New == "" {
			if err := journal.Remove(p); err != nil {
				return err
			}
			continue
		}
		data, err := l.Repo.ReadBlob(ctx, j.New)
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
		if id, ok := strings.CutPrefix(r.Name, "refs/nudgethis/snapshots/"); ok {
			return id
		}
	}
	return "ID"
}

// refusal runs every check op undo makes before changing anything, and
// changes nothing: nil when target can be undone now. cur, when set, is
// the refs and HEAD read once for many checks.
func (l *Log) refusal(ctx context.Context, ops []*Op, target *Op, cur *current) (*RefusedError, error) {
	what := "cannot undo " + target.ID + " (" + target.Kind + ")"
	switch {
	case target.State == Pending:
		return &RefusedError{What: what, Reasons: []string{"it has not finished (pending); op show " + target.ID + " tells what holds"}}, nil
	case target.UndoneBy != "":
		return &RefusedError{What: what, Reasons: []string{"it was already undone by " + target.UndoneBy}, Next: "git nudge op undo " + target.UndoneBy + " redoes it"}, nil
	case target.Kind == "run" && target.Tool == "autodev":
		// Its record also holds what the checkpoints made during the run
		// changed; those are operations of their own.
		return &RefusedError{What: what, Reasons: []string{"an autodev run is undone through the operations recorded inside it (its checkpoints): undo those"}}, nil
	case (target.Kind == "run" || target.Kind == "start" || target.Kind == "work" || target.Kind == "validate") && target.Tool == "nudge":
		// A long command holds no log lock while it runs, so its record
		// may also hold what other commands (or you) changed meanwhile:
		// undoing it could undo those too.
		next := "git nudge drop " + taskOf(target) + " removes the task it made; later operations are undone on their own"
		if target.Kind == "work" || target.Kind == "validate" {
			next = "git nudge drop ID removes a task; later operations are undone on their own"
		}
		return &RefusedError{What: what, Reasons: []string{"a git nudge " + target.Kind + " can have run alongside other commands, and its record may hold their changes too"},
			Next: next}, nil
	}
	if reasons := laterTouches(ops, target); len(reasons) > 0 {
		return &RefusedError{What: what, Reasons: reasons, Next: "undo the later operations first (newest first)"}, nil
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
		return &RefusedError{What: what, Reasons: diffs, Next: "nothing was changed; put those back as " + target.ID + " left them, or leave it"}, nil
	}
	if err := l.checkWritable(target); err != nil {
		return &RefusedError{What: what, Reasons: []string{err.Error()}}, nil
	}
	return nil, nil
}

// Undoable tells, for each finished operation of ops (as Read returns
// them), whether op undo would accept it now, and the reasons when not.
// It runs the same checks as Undo and changes nothing (no object is
// written either).
func (l *Log) Undoable(ctx context.Context, ops []*Op) (map[string][]string, error) {
	refs, head, err := l.Repo.RefsAndHead(ctx, refPrefixes...)
	if err != nil {
		return nil, err
	}
	cur := &current{refs: refs, head: head}
	out := map[string][]string{}
	for _, o := range ops {
		if o.State == Pending {
			continue
		}
		re, err := l.refusal(ctx, ops, o, cur)
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

// current is the refs and HEAD read once.
type current struct {
	refs map[string]string
	head string
}
