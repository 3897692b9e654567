package nudge

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// MarshalJSON writes the path as bytes survive JSON.
func (c MergeConflict) MarshalJSON() ([]byte, error) {
	type plain MergeConflict
	v := plain(c)
	return marshalPath(&v, &v.Path)
}

// UnmarshalJSON reads the path back, from path_b64 when present.
func (c *MergeConflict) UnmarshalJSON(data []byte) error {
	type plain MergeConflict
	return unmarshalPath(data, (*plain)(c), &c.Path)
}

// String is the conflict for people: "a.txt: lines 3-5, 9 (both changed these lines)".
func (c MergeConflict) String() string {
	var parts []string
	for _, l := range c.Lines {
		switch {
		case l.End < l.Start:
			parts = append(parts, fmt.Sprintf("after line %d", l.End))
		case l.End == l.Start:
			parts = append(parts, fmt.Sprintf("line %d", l.Start))
		default:
			parts = append(parts, fmt.Sprintf("lines %d-%d", l.Start, l.End))
		}
	}
	s := QuotePath(c.Path) + ": "
	if len(parts) > 0 {
		s += strings.Join(parts, ", ") + ": "
	}
	return s + c.Reason
}

// RefreshResult is what refresh made: the new task (ready, or failed with
// the conflicts) from the old one.
type RefreshResult struct {
	Old       string          `json:"old"`
	Task      *Task           `json:"task"`
	Conflicts []MergeConflict `json:"conflicts"`
}

// refreshNotePrefix starts the note of a task made by refresh.
const refreshNotePrefix = "refresh of "

// Refresh makes a new task from a snapshot of the workspace as it is now,
// whose result is task id's change merged onto it path by path (three-way,
// git merge-file: base = the old task's snapshot version, ours = the new
// snapshot's, theirs = the old result). Clean: the new task is ready with
// that result; else failed, naming each conflicting path. Task id is not
// changed.
//
// Crash safety: the new task's record is written by the snapshot (state
// snapshotted, note "refresh of ID") before its result ref is set and the
// record moved to ready or failed; a kill in between leaves a snapshotted
// task that names what it was for, and nothing of the old task changed.
func (w *Workspace) Refresh(ctx context.Context, id string) (*RefreshResult, error) {
	if err := w.checkModes("cannot take a snapshot"); err != nil {
		return nil, err
	}
	l, err := w.Lock(ctx, "git-nudge refresh")
	if err != nil {
		return nil, err
	}
	defer l.Release()
	old, err := w.Load(id)
	if err != nil {
		return nil, err
	}
	refuse := func(reason, next string) error {
		return &RefusedError{What: "cannot refresh " + id, Reasons: []string{reason}, Next: next}
	}
	if w.busy(id) {
		return nil, refuse(w.busyReason(old), "Wait for it to finish, then refresh it.")
	}
	switch old.State {
	case StateReady, StateUndone:
	default:
		return nil, refuse(fmt.Sprintf("it is %s; only a ready or undone task's result can be merged onto the workspace as it is now", StateLabel(old.State)),
			refreshNext(old))
	}
	if old.Result == nil || *old.Result == "" {
		return nil, refuse("it has no result", "")
	}
	note := refreshNotePrefix + id
	if old.Note != "" {
		note += ": " + old.Note
	}
	t, err := w.snapshotLocked(ctx, note)
	if err != nil {
		return nil, err
	}
	FaultPoint("refresh-after-snapshot")
	t.Command = old.Command
	t.RefreshedFrom = id
	edits, conflicts, made, err := w.mergeOnto(ctx, old, t)
	if err != nil {
		return nil, w.refreshFailed(t, "refresh of "+id+" stopped: "+err.Error(), nil, err)
	}
	if conflicts == nil {
		conflicts = []MergeConflict{}
	}
	res := &RefreshResult{Old: id, Task: t, Conflicts: conflicts}
	if len(conflicts) > 0 {
		msg := fmt.Sprintf("the change of %s could not be merged onto the workspace as it is now: %s", id, conflictList(conflicts))
		if err := w.refreshFailed(t, msg, conflicts, nil); err != nil {
			return nil, err
		}
		return res, nil
	}
	r := w.Repo
	if len(made) > 0 {
		var data [][]byte
		var ids []string
		for bid, d := range made {
			ids, data = append(ids, bid), append(data, d)
		}
		got, err := r.WriteBlobsData(ctx, data)
		if err != nil {
			return nil, w.refreshFailed(t, "refresh of "+id+" stopped: "+err.Error(), nil, err)
		}
		for i := range got {
			if got[i] != ids[i] {
				err := fmt.Errorf("git stored a merged file as %s, expected %s", got[i], ids[i])
				return nil, w.refreshFailed(t, "refresh of "+id+" stopped: "+err.Error(), nil, err)
			}
		}
	}
	tree, _, err := r.EditTree(ctx, t.Snapshot+"^{tree}", edits)
	if err != nil {
		return nil, w.refreshFailed(t, "refresh of "+id+" stopped: "+err.Error(), nil, err)
	}
	result, err := r.CommitTree(ctx, git.CommitRequest{
		Tree: tree, Parents: []string{t.Base()}, Message: "nudge result " + t.ID + "\n\n" + note,
		Author: Identity, Committer: Identity,
	})
	if err != nil {
		return nil, w.refreshFailed(t, "refresh of "+id+" stopped: "+err.Error(), nil, err)
	}
	ref := refs.Results + t.ID
	if err := r.SetRef(ctx, git.SetRefRequest{Name: ref, New: result, Old: r.ZeroID()}); err != nil {
		return nil, w.refreshFailed(t, "refresh of "+id+" stopped: "+err.Error(), nil, err)
	}
	FaultPoint("refresh-after-result-ref")
	files, err := ComputeFiles(ctx, r, t.Base(), result)
	if err != nil {
		return nil, err
	}
	t.Result, t.Files = &result, files
	t.State, t.Error = StateReady, nil
	return res, w.Save(t)
}

// refreshNext is the advice for a task refresh refuses.
func refreshNext(t *Task) string {
	switch t.State {
	case StateApplied:
		return fmt.Sprintf("Its change is in the work tree already; git nudge undo %s first to refresh it.", t.ID)
	case StateSaved:
		return "Its change is committed already."
	}
	return "Refresh a task once it is ready (git nudge list shows each task's state)."
}

// refreshFailed records the new task as failed with msg (and the
// conflicts) and returns err, or the error saving the record.
func (w *Workspace) refreshFailed(t *Task, msg string, conflicts []MergeConflict, err error) error {
	t.State, t.Error, t.RefreshConflicts = StateFailed, &msg, conflicts
	if serr := w.Save(t); serr != nil && err == nil {
		err = serr
	}
	return err
}

// conflictList is the conflicts on one line.
func conflictList(cs []MergeConflict) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = c.String()
	}
	return strings.Join(s, "; ")
}

// mergeOnto works out the edits that put old's change onto the new
// task's snapshot, path by path, and the paths that cannot take it.
func (w *Workspace) mergeOnto(ctx context.Context, old, t *Task) ([]git.TreeEdit, []MergeConflict, map[string][]byte, error) {
	r := w.Repo
	paths := make([]string, len(old.Files))
	for i, f := range old.Files {
		paths[i] = f.Path
	}
	now, err := r.TreeEntriesAt(ctx, t.Snapshot+"^{tree}", paths)
	if err != nil {
		return nil, nil, nil, err
	}
	made := map[string][]byte{}
	m := &merger{r: r, ws: w, ctx: ctx, made: made, reader: r.NewBlobReader()}
	defer m.close()
	edits := make([]*git.TreeEdit, len(paths))
	conflicts := make([]*MergeConflict, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	m.join() // this loop, until every merging goroutine is counted
	for i, f := range old.Files {
		base := entOf(PathState{Mode: f.OldMode, Blob: f.OldBlob})
		theirs := entOf(PathState{Mode: f.NewMode, Blob: f.NewBlob})
		ours := entOfIndex(now[i])
		switch {
		case ours == base:
			edits[i] = treeEditOf(f.Path, theirs)
			continue
		case ours == theirs:
			continue // already there
		}
		for _, e := range []ent{base, ours, theirs} {
			if e.Mode == "120000" || e.Mode == "160000" {
				what := "a symbolic link"
				if e.Mode == "160000" {
					what = "a submodule"
				}
				conflicts[i] = &MergeConflict{Path: f.Path, Reason: what + " changed both by the task and since its snapshot: merge it by hand"}
				break
			}
		}
		if conflicts[i] != nil {
			continue
		}
		wg.Add(1)
		m.join()
		go func() {
			defer wg.Done()
			got, why, err := m.merge3(base, ours, theirs)
			m.leave()
			switch {
			case err != nil:
				errs[i] = err
			case why == "":
				if got != ours {
					edits[i] = treeEditOf(f.Path, got)
				}
			default:
				c := &MergeConflict{Path: f.Path, Reason: refreshClash(why)}
				if why == clashLines {
					c.Lines, errs[i] = clashingLines(ctx, r, base.Blob, ours.Blob, theirs.Blob)
				}
				conflicts[i] = c
			}
		}()
	}
	m.leave()
	wg.Wait()
	var outEdits []git.TreeEdit
	var outConflicts []MergeConflict
	for i := range paths {
		if errs[i] != nil {
			return nil, nil, nil, errs[i]
		}
		if edits[i] != nil {
			outEdits = append(outEdits, *edits[i])
		}
		if conflicts[i] != nil {
			outConflicts = append(outConflicts, *conflicts[i])
		}
	}
	return outEdits, outConflicts, made, nil
}

func treeEditOf(p string, e ent) *git.TreeEdit {
	if !e.present() {
		return &git.TreeEdit{Path: p, Mode: "000000", Object: ""}
	}
	return &git.TreeEdit{Path: p, Mode: e.Mode, Object: e.Blob}
}

// refreshClash says why a path's change cannot be merged (merge3's why).
func refreshClash(why string) string {
	switch why {
	case clashLines:
		return "the task and your edits since its snapshot changed the same lines"
	case clashDelete:
		return "the task deletes the file, which you edited since its snapshot"
	case clashCreate:
		return "the task creates the file, and the workspace now has another version of it"
	case clashAbsent:
		return "the task changes the file, which is gone from the workspace now"
	case clashMode:
		return "the task changes the file's mode, and so did you"
	}
	return "a binary file changed both by the task and since its snapshot (binary files are not merged line by line)"
}

// clashingLines are the line ranges of ours (the workspace's version) that
// changed where theirs changed too: each hunk base -> ours that overlaps
// or touches a hunk base -> theirs, as git merge-file sees a conflict.
func clashingLines(ctx context.Context, r *git.Repo, base, ours, theirs string) ([]LineRange, error) {
	mine, err := r.DiffBlobLines(ctx, base, ours)
	if err != nil {
		return nil, err
	}
	task, err := r.DiffBlobLines(ctx, base, theirs)
	if err != nil {
		return nil, err
	}
	// span is a hunk's old lines as [from, to) in base; an insertion
	// (count 0 after line s) is the empty span at s+1.
	span := func(start, count int) (int, int) {
		if count == 0 {
			return start + 1, start + 1
		}
		return start, start + count
	}
	var out []LineRange
	for _, h := range mine {
		a0, a1 := span(h.OldStart, h.OldCount)
		for _, k := range task {
			b0, b1 := span(k.OldStart, k.OldCount)
			if a0 <= b1 && b0 <= a1 { // overlapping or adjacent
				if h.NewCount == 0 {
					out = append(out, LineRange{Start: h.NewStart + 1, End: h.NewStart})
				} else {
					out = append(out, LineRange{Start: h.NewStart, End: h.NewStart + h.NewCount - 1})
				}
				break
			}
		}
	}
	return out, nil
}
