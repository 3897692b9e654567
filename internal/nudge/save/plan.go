package save

import (
	"context"
	"fmt"
	"sync"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/merge"
)

// A save commits exactly the reviewed change: for each saved
// path, HEAD's version with the change each task made to it merged in
// (three-way: base = the path as the task found it, ours = HEAD's, theirs
// = as the task left it), so that the user's own edits of the file stay
// out of the commit. The user's index entry of the path gets the same
// change merged into it, so a staged edit stays staged; a path whose index
// holds HEAD's version gets the commit's.
//
// The change a task made is its undo record's before -> after: for a plain
// apply that is the snapshot's version -> the result, exactly the task's
// patch; for a path that apply merged it is the change as written onto the
// work tree.

// taskChange is one task's change to a path.
type taskChange struct{ before, after merge.Ent }

// savePlan is what a save commits and stages, path by path (in the order
// of the save's paths).
type savePlan struct {
	Commit   []merge.Ent
	Index    []merge.Ent // the user's index entry after the save
	oldIndex []merge.Ent // and before it
	// Whole: the paths committed as they are in the work tree
	// (--whole-files) because the task's change could not be separated
	// from the user's edits; kept: the paths whose commit is not the
	// work tree's version (the user's own edits stay out of it).
	Whole, Kept []string
	// made: merged contents not yet in the object store, by blob id.
	made map[string][]byte
}

// Rebased lists the saved paths whose index entry after the save is not
// the commit's, with the entry before, for the journal.
func (p *savePlan) Rebased(paths []string) []nudge.SaveIndexEntry {
	var out []nudge.SaveIndexEntry
	for i, path := range paths {
		if p.Index[i] != p.Commit[i] {
			n, o := p.Index[i].PathState(path), p.oldIndex[i].PathState(path)
			out = append(out, nudge.SaveIndexEntry{Path: path, Mode: n.Mode, Blob: n.Blob, OldMode: o.Mode, OldBlob: o.Blob})
		}
	}
	return out
}

// overlapNext is the advice when a task's change cannot be separated from
// the user's own edits.
const overlapNext = "Nothing was committed. git nudge save --whole-files commits such files as they are now in the work tree, your own edits in them included (and sets their index entries to the commit's); or save the other tasks by naming them (git nudge save ID...)."

// planSave works out the commit's and the index's entry of every saved
// path (tasks in the order they were applied; want is what the work tree
// holds, checked by the caller). Paths whose change overlaps the user's
// edits add a reason to refuse, unless wholeFiles: then they are
// committed and staged as they are in the work tree.
func planSave(ctx context.Context, w *nudge.Workspace, head git.Head, tasks []*nudge.Task, paths []string, want map[string]nudge.PathState, wholeFiles bool, refuse *nudge.RefusedError) (*savePlan, error) {
	r := w.Repo
	changes := make(map[string][]taskChange, len(paths))
	for _, t := range tasks {
		before := make(map[string]nudge.PathState, len(t.Undo.Before))
		for _, b := range t.Undo.Before {
			before[b.Path] = b
		}
		for _, a := range t.Undo.After {
			b, ok := before[a.Path]
			if !ok {
				b = nudge.PathState{Path: a.Path} // a record without one: treated as added
			}
			changes[a.Path] = append(changes[a.Path], taskChange{before: merge.EntOf(b), after: merge.EntOf(a)})
		}
	}
	heads := make([]git.IndexEntry, len(paths))
	for i, p := range paths {
		heads[i] = git.IndexEntry{Path: p}
	}
	if !head.Unborn() {
		var err error
		if heads, err = r.TreeEntriesAt(ctx, head.Commit+"^{tree}", paths); err != nil {
			return nil, err
		}
	}
	idx, unmerged, err := r.IndexEntriesAt(ctx, paths)
	if err != nil {
		return nil, err
	}
	plan := &savePlan{Commit: make([]merge.Ent, len(paths)), Index: make([]merge.Ent, len(paths)), oldIndex: make([]merge.Ent, len(paths)), made: map[string][]byte{}}
	m := merge.New(ctx, w, r, plan.made)
	reasons := make([]string, len(paths))
	var wg sync.WaitGroup
	var firstErr error
	var errOnce sync.Once
	m.Join() // this loop, until every path's goroutine is counted
	for i, p := range paths {
		plan.oldIndex[i] = merge.EntOfIndex(idx[i])
		wg.Add(1)
		m.Join()
		go func(i int, p string) {
			defer wg.Done()
			reason, err := planPath(m, p, merge.EntOfIndex(heads[i]), plan.oldIndex[i], unmerged[p], changes[p], &plan.Commit[i], &plan.Index[i])
			if err != nil {
				errOnce.Do(func() { firstErr = err })
				return
			}
			reasons[i] = reason
		}(i, p)
	}
	m.Leave()
	wg.Wait()
	m.Close()
	if firstErr != nil {
		return nil, firstErr
	}
	for i, p := range paths {
		now := merge.EntOf(want[p])
		switch {
		case reasons[i] != "" && !wholeFiles:
			refuse.Reasons = append(refuse.Reasons, reasons[i])
			refuse.Next = overlapNext
		case reasons[i] != "":
			plan.Commit[i], plan.Index[i] = now, now
			plan.Whole = append(plan.Whole, p)
		case plan.Commit[i] != now:
			plan.Kept = append(plan.Kept, p)
		}
	}
	return plan, nil
}

// Write stores the merged contents the plan's entries name (one batch).
func (p *savePlan) Write(ctx context.Context, r *git.Repo) error {
	used := map[string]bool{}
	for i := range p.Commit {
		used[p.Commit[i].Blob], used[p.Index[i].Blob] = true, true
	}
	var ids []string
	var data [][]byte
	for id, d := range p.made {
		if used[id] {
			ids = append(ids, id)
			data = append(data, d)
		}
	}
	if len(data) == 0 {
		return nil
	}
	got, err := r.WriteBlobsData(ctx, data)
	if err != nil {
		return err
	}
	for i := range got {
		if got[i] != ids[i] {
			return fmt.Errorf("git stored a merged file as %s, expected %s", got[i], ids[i])
		}
	}
	return nil
}

// commitClash says why path qp's change cannot be committed on its own.
func commitClash(qp, why string) string {
	var s string
	switch why {
	case merge.ClashLines:
		s = "the task's change and your own uncommitted edits of the file touch the same lines"
	case merge.ClashDelete:
		s = "the task deletes the file, and it has your own uncommitted edits"
	case merge.ClashCreate:
		s = "the task creates the file, and HEAD now has another version of it"
	case merge.ClashAbsent:
		s = "the file is not in HEAD (it is new in your work tree), and the task changes it"
	case merge.ClashMode:
		s = "the task changes the file's mode, and so did you"
	default:
		s = "it is a binary file with your own uncommitted edits besides the task's change (binary files are not merged line by line)"
	}
	return fmt.Sprintf("%s: %s, so save cannot commit the task's change without yours", qp, s)
}

// indexClash says why path qp's staged version cannot take its change.
func indexClash(qp, why string) string {
	var s string
	switch why {
	case merge.ClashLines:
		s = "they touch the same lines"
	case merge.ClashDelete:
		s = "the task deletes the file"
	case merge.ClashCreate:
		s = "the task creates the file"
	case merge.ClashAbsent:
		s = "you staged its removal"
	case merge.ClashMode:
		s = "both change its mode"
	default:
		s = "it is binary, and binary files are not merged line by line"
	}
	return fmt.Sprintf("%s: the version you staged cannot take the task's change (%s), so your staged change cannot stay staged apart from it", qp, s)
}

// planPath sets the commit's and the index's entry of path p (HEAD holds
// head, the index idx) and returns the reason it cannot be saved apart
// from the user's edits ("" when it can).
//
// The caller has counted it as a participant (join); it leaves once its
// commit chain is merged, and its index chain runs as a participant of its
// own.
func planPath(m *merge.Merger, p string, head, idx merge.Ent, unmerged bool, chain []taskChange, commit, index *merge.Ent) (string, error) {
	qp := nudge.QuotePath(p)
	left := false
	leave := func() {
		if !left {
			left = true
			m.Leave()
		}
	}
	defer leave()
	// The index's chain runs beside the commit's (they do not depend on
	// each other), so that their merge-file processes overlap.
	type indexAnswer struct {
		e   merge.Ent
		why string
		err error
	}
	var indexc chan indexAnswer
	if !unmerged && idx != head {
		indexc = make(chan indexAnswer, 1)
		m.Join()
		go func() {
			defer m.Leave()
			ix := idx
			for _, ch := range chain {
				got, why, err := m.Merge3(ch.before, ix, ch.after)
				if err != nil || why != "" {
					indexc <- indexAnswer{err: err, why: why}
					return
				}
				ix = got
			}
			indexc <- indexAnswer{e: ix}
		}()
	}
	c := head
	var commitWhy string
	for _, ch := range chain {
		got, why, err := m.Merge3(ch.before, c, ch.after)
		if err != nil {
			return "", err
		}
		if why != "" {
			commitWhy = why
			break
		}
		c = got
	}
	leave() // no more merges here: waiting for the index's must not hold them up
	var ia indexAnswer
	if indexc != nil {
		ia = <-indexc
	}
	switch {
	case ia.err != nil:
		return "", ia.err
	case commitWhy != "":
		return commitClash(qp, commitWhy), nil
	}
	*commit = c
	if unmerged {
		return fmt.Sprintf("%s has unresolved conflicts in your index (git status shows them), so there is no staged version to keep", qp), nil
	}
	if idx == head {
		// Nothing of it staged: the index gets the commit's version.
		*index = c
		return "", nil
	}
	if ia.why != "" {
		return indexClash(qp, ia.why), nil
	}
	*index = ia.e
	return "", nil
}

// savedIndexEntries are the index entries save e sets for its paths: the
// commit's, except where the journal names a re-based one.
func savedIndexEntries(ctx context.Context, w *nudge.Workspace, e *nudge.SaveEntry) ([]git.IndexEntry, error) {
	entries, err := w.Repo.TreeEntries(ctx, e.Commit, e.Paths)
	if err != nil {
		return nil, err
	}
	if len(e.Index) == 0 {
		return entries, nil
	}
	byPath := make(map[string]nudge.SaveIndexEntry, len(e.Index))
	for _, x := range e.Index {
		byPath[x.Path] = x
	}
	for i := range entries {
		if x, ok := byPath[entries[i].Path]; ok {
			n := merge.EntOf(nudge.PathState{Mode: x.Mode, Blob: x.Blob})
			entries[i].Mode, entries[i].Blob = n.Mode, n.Blob
		}
	}
	return entries, nil
}

// preSaveIndex is the index entry of path p before save e, where the
// journal recorded it (a re-based path); ok is false otherwise.
func preSaveIndex(e *nudge.SaveEntry, p string) (git.IndexEntry, bool) {
	for _, x := range e.Index {
		if x.Path == p {
			o := merge.EntOf(nudge.PathState{Mode: x.OldMode, Blob: x.OldBlob})
			return git.IndexEntry{Path: p, Mode: o.Mode, Blob: o.Blob}, true
		}
	}
	return git.IndexEntry{}, false
}
