package apply

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/merge"
	"github.com/nudgethis/git-nudge/internal/nudge/take"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// MarshalJSON writes the path as bytes survive JSON.
func MarshalJSON(c nudge.MergeConflict) ([]byte, error) {
	type plain nudge.MergeConflict
	v := plain(c)
	return nudge.MarshalPath(&v, &v.Path)
}

// UnmarshalJSON reads the path back, from path_b64 when present.
func UnmarshalJSON(c *nudge.MergeConflict, data []byte) error {
	type plain nudge.MergeConflict
	return nudge.UnmarshalPath(data, (*plain)(c), &c.Path)
}

// RefreshResult is what refresh made: the new task (ready, or failed with
// the conflicts) from the old one.
type RefreshResult struct {
	Old       string                `json:"old"`
	Task      *nudge.Task           `json:"task"`
	Conflicts []nudge.MergeConflict `json:"conflicts"`
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
func Refresh(ctx context.Context, w *nudge.Workspace, id string) (*RefreshResult, error) {
	if err := w.Guard().CheckModes("cannot take a snapshot"); err != nil {
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
		return &nudge.RefusedError{What: "cannot refresh " + id, Reasons: []string{reason}, Next: next}
	}
	if w.Busy(id) {
		return nil, refuse(w.BusyReason(old), "Wait for it to finish, then refresh it.")
	}
	switch old.State {
	case nudge.StateReady, nudge.StateUndone:
	default:
		return nil, refuse(fmt.Sprintf("it is %s; only a ready or undone task's result can be merged onto the workspace as it is now", nudge.StateLabel(old.State)),
			refreshNext(old))
	}
	if old.Result == nil || *old.Result == "" {
		return nil, refuse("it has no result", "")
	}
	note := refreshNotePrefix + id
	if old.Note != "" {
		note += ": " + old.Note
	}
	t, err := take.SnapshotLocked(ctx, w, note)
	if err != nil {
		return nil, err
	}
	nudge.FaultPoint("refresh-after-snapshot")
	t.Command = old.Command
	t.RefreshedFrom = id
	edits, conflicts, made, err := mergeOnto(ctx, w, old, t)
	if err != nil {
		return nil, refreshFailed(w, t, "refresh of "+id+" stopped: "+err.Error(), nil, err)
	}
	if conflicts == nil {
		conflicts = []nudge.MergeConflict{}
	}
	res := &RefreshResult{Old: id, Task: t, Conflicts: conflicts}
	if len(conflicts) > 0 {
		msg := fmt.Sprintf("the change of %s could not be merged onto the workspace as it is now: %s", id, conflictList(conflicts))
		if err := refreshFailed(w, t, msg, conflicts, nil); err != nil {
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
			return nil, refreshFailed(w, t, "refresh of "+id+" stopped: "+err.Error(), nil, err)
		}
		for i := range got {
			if got[i] != ids[i] {
				err := fmt.Errorf("git stored a merged file as %s, expected %s", got[i], ids[i])
				return nil, refreshFailed(w, t, "refresh of "+id+" stopped: "+err.Error(), nil, err)
			}
		}
	}
	tree, _, err := r.EditTree(ctx, t.Snapshot+"^{tree}", edits)
	if err != nil {
		return nil, refreshFailed(w, t, "refresh of "+id+" stopped: "+err.Error(), nil, err)
	}
	result, err := r.CommitTree(ctx, git.CommitRequest{
		Tree: tree, Parents: []string{t.Base()}, Message: "nudge result " + t.ID + "\n\n" + note,
		Author: nudge.Identity, Committer: nudge.Identity,
	})
	if err != nil {
		return nil, refreshFailed(w, t, "refresh of "+id+" stopped: "+err.Error(), nil, err)
	}
	ref := refs.Results + t.ID
	if err := r.SetRef(ctx, git.SetRefRequest{Name: ref, New: result, Old: r.ZeroID()}); err != nil {
		return nil, refreshFailed(w, t, "refresh of "+id+" stopped: "+err.Error(), nil, err)
	}
	nudge.FaultPoint("refresh-after-result-ref")
	files, err := nudge.ComputeFiles(ctx, r, t.Base(), result)
	if err != nil {
		return nil, err
	}
	t.Result, t.Files = &result, files
	t.State, t.Error = nudge.StateReady, nil
	return res, w.Save(t)
}

// refreshNext is the advice for a task refresh refuses.
func refreshNext(t *nudge.Task) string {
	switch t.State {
	case nudge.StateApplied:
		return fmt.Sprintf("Its change is in the work tree already; git nudge undo %s first to refresh it.", t.ID)
	case nudge.StateSaved:
		return "Its change is committed already."
	}
	return "Refresh a task once it is ready (git nudge list shows each task's state)."
}

// refreshFailed records the new task as failed with msg (and the
// conflicts) and returns err, or the error saving the record.
func refreshFailed(w *nudge.Workspace, t *nudge.Task, msg string, conflicts []nudge.MergeConflict, err error) error {
	t.State, t.Error, t.RefreshConflicts = nudge.StateFailed, &msg, conflicts
	if serr := w.Save(t); serr != nil && err == nil {
		err = serr
	}
	return err
}

// conflictList is the conflicts on one line.
func conflictList(cs []nudge.MergeConflict) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = c.String()
	}
	return strings.Join(s, "; ")
}

// mergeOnto works out the edits that put old's change onto the new
// task's snapshot, path by path, and the paths that cannot take it.
func mergeOnto(ctx context.Context, w *nudge.Workspace, old, t *nudge.Task) ([]git.TreeEdit, []nudge.MergeConflict, map[string][]byte, error) {
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
	m := merge.New(ctx, w, r, made)
	defer m.Close()
	edits := make([]*git.TreeEdit, len(paths))
	conflicts := make([]*nudge.MergeConflict, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	m.Join() // this loop, until every merging goroutine is counted
	for i, f := range old.Files {
		base := merge.EntOf(nudge.PathState{Mode: f.OldMode, Blob: f.OldBlob})
		theirs := merge.EntOf(nudge.PathState{Mode: f.NewMode, Blob: f.NewBlob})
		ours := merge.EntOfIndex(now[i])
		switch {
		case ours == base:
			edits[i] = treeEditOf(f.Path, theirs)
			continue
		case ours == theirs:
			continue // already there
		}
		for _, e := range []merge.Ent{base, ours, theirs} {
			if e.Mode == "120000" || e.Mode == "160000" {
				what := "a symbolic link"
				if e.Mode == "160000" {
					what = "a submodule"
				}
				conflicts[i] = &nudge.MergeConflict{Path: f.Path, Reason: what + " changed both by the task and since its snapshot: merge it by hand"}
				break
			}
		}
		if conflicts[i] != nil {
			continue
		}
		wg.Add(1)
		m.Join()
		go func() {
			defer wg.Done()
			got, why, err := m.Merge3(base, ours, theirs)
			m.Leave()
			switch {
			case err != nil:
				errs[i] = err
			case why == "":
				if got != ours {
					edits[i] = treeEditOf(f.Path, got)
				}
			default:
				c := &nudge.MergeConflict{Path: f.Path, Reason: refreshClash(why)}
				if why == merge.ClashLines {
					c.Lines, errs[i] = merge.ClashingLines(ctx, r, base.Blob, ours.Blob, theirs.Blob)
				}
				conflicts[i] = c
			}
		}()
	}
	m.Leave()
	wg.Wait()
	var outEdits []git.TreeEdit
	var outConflicts []nudge.MergeConflict
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

func treeEditOf(p string, e merge.Ent) *git.TreeEdit {
	if !e.Present() {
		return &git.TreeEdit{Path: p, Mode: "000000", Object: ""}
	}
	return &git.TreeEdit{Path: p, Mode: e.Mode, Object: e.Blob}
}

// refreshClash says why a path's change cannot be merged (merge3's why).
func refreshClash(why string) string {
	switch why {
	case merge.ClashLines:
		return "the task and your edits since its snapshot changed the same lines"
	case merge.ClashDelete:
		return "the task deletes the file, which you edited since its snapshot"
	case merge.ClashCreate:
		return "the task creates the file, and the workspace now has another version of it"
	case merge.ClashAbsent:
		return "the task changes the file, which is gone from the workspace now"
	case merge.ClashMode:
		return "the task changes the file's mode, and so did you"
	}
	return "a binary file changed both by the task and since its snapshot (binary files are not merged line by line)"
}
